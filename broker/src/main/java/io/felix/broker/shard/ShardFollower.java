package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The follower role (also a learner's): copies the leader's log through the fetch session of this broker with the
 * leader's broker ({@link LeaderFetchers}), which sends every shard's position in one request.
 *
 * <p>The position names the follower's log end, the epoch of its last batch and its stored offset (the ack: only
 * what the log reports stored, so every ack is true), under the leader epoch it follows. The leader first checks
 * that the two logs agree up to there (KIP-101); when they do not it answers with where they part, the follower
 * truncates and gives a new position. Otherwise the leader pushes records as it appends them; after an append the
 * follower reports its new log end at once (the leader may ship the next records while the fsync runs) and its
 * stored offset once the fsync completes.
 *
 * <p>Each position has a fetch id. The follower takes a new one whenever its log stops continuing what the leader
 * ships (it starts following, truncates, restarts at the leader's start, or an answer does not start exactly at its
 * log end: records were lost or came twice), which makes the leader ship from that log end again. An answer is used
 * only if it carries the current fetch id, the current epoch and starts exactly at the log end, so answers to older
 * positions are harmless. Errors that only need time (no leader there yet) are retried by the fetcher.
 *
 * <p>Without a leader, or with an assignment older than the fence, the follower is idle and fetches nothing. An idle
 * follower that holds the leader's whole log exchanges no message and runs no timer.
 */
final class ShardFollower extends AbstractBehavior<ShardReplica.Command> {
  private final ReplicaContext ctx;
  private ShardAssignment assignment;
  /**
   * The id of the current position (see the class comment). It starts at random: a replica actor started again (after
   * a failure) must not present its first position under an id its predecessor used, or the leader would take it for
   * that predecessor's progress and wait for records the new actor never got.
   */
  private long fetchId = java.util.concurrent.ThreadLocalRandom.current().nextLong(1, 1L << 62);
  /** The position last given to the fetcher: a change of log end or stored offset is reported, nothing else. */
  private long reportedEnd = -1;
  private long reportedStored = -1;
  /** The highest commit offset the current leader has sent, -1 before its first answer. */
  private long learnedCommit = -1;
  /** Whether the leader accepted the current position (answered it without an error). */
  private boolean accepted;
  /** The incarnation mismatch was logged for the current leadership (it is said once, not on every retry). */
  private boolean mismatchLogged;
  /** When this replica last told the singleton it is assigned to lead but does not; null before the first time. */
  private Long notServingReportedAtNanos;

  private ShardFollower(ReplicaContext ctx, ShardAssignment assignment) {
    super(ctx.actor);
    this.ctx = ctx;
    this.assignment = assignment;
  }

  static Behavior<ShardReplica.Command> create(ReplicaContext ctx, ShardAssignment assignment) {
    ShardFollower follower = new ShardFollower(ctx, assignment);
    return follower.follow(assignment, () -> {
      ctx.housekeepingIfDue();
      follower.workIfPending();
      return follower;
    });
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ShardReplica.FetchResultArrived.class, this::onFetchResult)
        .onMessage(ShardReplica.Stored.class, this::onStored)
        .onMessageEquals(ShardReplica.Tick.WORK, this::onWorkTick)
        .onMessageEquals(ShardReplica.Tick.HOUSEKEEPING, () -> {
          ctx.housekeep();
          return this;
        })
        .onMessage(ShardReplica.ClientProduce.class, p -> {
          p.reply().complete(ShardReplica.notLeader(ctx.id, knownLeader(), ctx.registry));
          return this;
        })
        .onMessage(ShardReplica.CacheRead.class, this::onCacheRead)
        .onMessage(ShardReplica.ClientFetch.class, f -> {
          ctx.reads.fetch(f, ctx.commitOffset, false);
          workIfPending();
          return this;
        })
        .onMessage(ShardReplica.FollowerFetch.class, f -> {
          ShardReplica.refuseFetch(f, assignment.leaderEpoch(), FetchError.FETCH_NOT_LEADER);
          return this;
        })
        .onMessage(ShardReplica.FollowerSessionEnded.class, e -> this)
        .onMessage(ShardReplica.Assign.class, this::onAssign)
        .onMessage(ShardReplica.Fence.class, f -> ctx.promise(f.newEpoch(), this, () -> {
          if (!canFetch()) {
            ctx.unfollow(); // fenced above the epoch it followed: no more acks under it
          }
          publish();
          f.replyTo().tell(ctx.status(role(), false));
          return this;
        }))
        .onMessage(ShardReplica.Describe.class, d -> {
          d.replyTo().tell(ctx.status(role(), false));
          return this;
        })
        .onMessage(ShardReplica.Digest.class, d -> {
          ShardReplica.digest(ctx, d);
          return this;
        })
        .onMessage(ShardReplica.LogFailed.class, f -> {
          if (f.log() != ctx.log) {
            return this;
          }
          ctx.unfollow();
          return FailedReplica.afterRunFailed(ctx, assignment, f.cause());
        })
        .onMessage(ShardReplica.Retire.class, r -> ShardReplica.retire(ctx, r))
        .onSignal(PostStop.class, s -> {
          ShardReplica.onPostStop(ctx, s);
          return this;
        })
        .build();
  }

  /** Follows {@code a}'s leader (once its epoch is promised and stored), or nobody; then continues with {@code then}. */
  private Behavior<ShardReplica.Command> follow(ShardAssignment a, Supplier<Behavior<ShardReplica.Command>> then) {
    assignment = a;
    learnedCommit = -1;
    accepted = false;
    mismatchLogged = false;
    if (a.leader() != ShardAssignment.NO_LEADER && a.leader() != ctx.brokerId && !canFetch()) {
      ctx.actor.getLog().debug("replica {} will not follow broker {} at epoch {}: it has promised epoch {}", ctx.id,
          a.leader(), a.leaderEpoch(), ctx.promisedEpoch());
    }
    if (canFetch()) {
      // Promised before the first entry: it acks, and acks count only under the promise.
      return ctx.promise(a.leaderEpoch(), this, () -> {
        ctx.actor.getLog().debug("replica {} follows broker {} at epoch {}{} from offset {} (last epoch {})", ctx.id,
            a.leader(), a.leaderEpoch(), isLearner() ? " as a learner" : "", ctx.log.logEndOffset(),
            ctx.log.lastEpoch());
        newPosition();
        publish();
        return then.get();
      });
    }
    ctx.unfollow();
    publish();
    return then.get();
  }

  /** Publishes this replica's role (see {@link ReplicaRegistry#published}); called whenever it may change. */
  private void publish() {
    ctx.publish(ctx.status(role(), false));
  }

  private boolean canFetch() {
    return assignment.leader() != ShardAssignment.NO_LEADER && assignment.leader() != ctx.brokerId
        && assignment.leaderEpoch() >= ctx.promisedEpoch();
  }

  private boolean isLearner() {
    return assignment.learners().contains(ctx.brokerId) && !assignment.replicas().contains(ctx.brokerId);
  }

  private int knownLeader() {
    return canFetch() ? assignment.leader() : -1;
  }

  private ReplicaRole role() {
    if (!canFetch() && assignment.leaderEpoch() < ctx.promisedEpoch()) {
      return ReplicaRole.FENCED;
    }
    return isLearner() ? ReplicaRole.LEARNER : ReplicaRole.FOLLOWER;
  }

  /** A new position: the log no longer continues what the leader shipped, so it ships from the log end again. */
  private void newPosition() {
    fetchId++;
    accepted = false;
    report();
  }

  /** Gives the fetcher the position (unless it is the one given last with the same fetch id). */
  private void reportIfMoved() {
    if (canFetch() && (ctx.log.logEndOffset() != reportedEnd || ctx.log.storedOffset() != reportedStored)) {
      report();
    }
  }

  private void report() {
    reportedEnd = ctx.log.logEndOffset();
    reportedStored = ctx.log.storedOffset();
    ctx.follow(assignment.leader(), ReplicaFetch.newBuilder()
        .setShard(ShardRefs.toRef(ctx.id)).setLeaderEpoch(assignment.leaderEpoch())
        .setFollowerId(ctx.brokerId).setFetchOffset(reportedEnd).setLastFetchedEpoch(ctx.log.lastEpoch())
        .setDurableOffset(reportedStored).setMaxBytes(ctx.settings.fetchMaxBytes()).setFetchId(fetchId)
        .setIncarnation(ctx.state().incarnation().toString()).build());
  }

  private Behavior<ShardReplica.Command> onFetchResult(ShardReplica.FetchResultArrived arrived) {
    ReplicaFetchResult r = arrived.result();
    if (arrived.fromBroker() != assignment.leader() || !canFetch() || r.getFetchId() != fetchId
        || r.getLeaderEpoch() != assignment.leaderEpoch()) {
      // Not from our leader, no longer wanted, for an older position, or from a leader at another epoch (not there
      // yet, or any more: the fetcher asks again later).
      return this;
    }
    switch (r.getError()) {
      case FETCH_INCARNATION_MISMATCH:
        if (!mismatchLogged) {
          mismatchLogged = true;
          ctx.actor.getLog().warn("replica {} (incarnation {}): broker {} leads another incarnation of the stream "
              + "at epoch {}; nothing is copied or truncated", ctx.id, ctx.state().incarnation(),
              arrived.fromBroker(), r.getLeaderEpoch());
        }
        return this; // the fetcher asks again later
      case FETCH_NOT_LEADER:
      case FETCH_REPLICA_FAILED:
        return this; // the leader is not serving yet (or any more): the fetcher asks again later
      case FETCH_OFFSET_OUT_OF_RANGE:
      case FETCH_DIVERGING:
        if (r.getFetchOffset() != ctx.log.logEndOffset()) {
          // About an earlier log end of this position; the leader dropped the position, so it goes again from here.
          newPosition();
          return this;
        }
        return r.getError() == FetchError.FETCH_DIVERGING ? onDiverging(r) : restartAtLeaderStart(r);
      default:
        return onRecords(arrived.fromBroker(), r);
    }
  }

  private Behavior<ShardReplica.Command> onDiverging(ReplicaFetchResult r) {
    try {
      truncateToAgreement(r.getDivergingEpoch(), r.getDivergingEndOffset());
    } catch (RuntimeException e) {
      if (ctx.log.failed()) {
        ctx.unfollow();
        return FailedReplica.afterRunFailed(ctx, assignment, "a truncation failed: " + e.getMessage());
      }
      throw e;
    }
    newPosition();
    return this;
  }

  private Behavior<ShardReplica.Command> onRecords(int fromBroker, ReplicaFetchResult r) {
    if (r.getFetchOffset() != ctx.log.logEndOffset()) {
      // Not where the log ends: records of this position went missing or came twice. Start from the log end again.
      newPosition();
      return this;
    }
    accepted = true;
    learnedCommit = Math.max(learnedCommit, r.getCommitOffset());
    if (r.getBatches().isEmpty()) {
      ctx.commitTo(r.getCommitOffset());
      return checkRecovered(() -> this);
    }
    long end;
    try {
      end = ctx.log.appendReplicated(r.getBatches().asReadOnlyByteBuffer());
    } catch (RuntimeException e) {
      if (ctx.log.failed()) {
        ctx.actor.getLog().error("replica {}: appending batches from broker {} failed: {}", ctx.id, fromBroker,
            e.getMessage());
        ctx.unfollow();
        return FailedReplica.afterRunFailed(ctx, assignment, "an append failed: " + e.getMessage());
      }
      ctx.actor.getLog().warn("replica {}: batches from broker {} refused ({}); fetching again", ctx.id, fromBroker,
          e.getMessage());
      newPosition();
      return this;
    }
    ctx.commitTo(r.getCommitOffset());
    ctx.log.awaitStored(end).whenComplete((off, failure) -> {
      if (failure == null) {
        ctx.actor.getSelf().tell(new ShardReplica.Stored(off));
      } else {
        ShardReplica.reportFailure(ctx, failure);
      }
    });
    reportIfMoved(); // the new log end: the leader may ship the next records while the fsync runs
    ctx.housekeepingIfDue();
    return this;
  }

  /**
   * The leader's retention deleted the records after this log's end: what this log holds is all committed and
   * deleted on the leader, so the log is dropped and starts again, empty, at the leader's start, then fetches.
   */
  private Behavior<ShardReplica.Command> restartAtLeaderStart(ReplicaFetchResult r) {
    long leaderStart = r.getLeaderLogStartOffset();
    long end = ctx.log.logEndOffset();
    if (end >= leaderStart) {
      newPosition(); // the leader's start moved under an older position: ask again from here
      return this;
    }
    try {
      ctx.log.restartAt(leaderStart);
      ctx.forgetCacheIndex();
    } catch (RuntimeException e) {
      if (ctx.log.failed()) {
        ctx.unfollow();
        return FailedReplica.afterRunFailed(ctx, assignment, "restarting the log failed: " + e.getMessage());
      }
      throw e;
    }
    ctx.metrics.logStartOffset(ctx.id, leaderStart);
    ctx.actor.getLog().info("replica {}: its log ends at {}, below the log start {} of leader {} (retention): "
        + "dropped it and copies from {}", ctx.id, end, leaderStart, assignment.leader(), leaderStart);
    newPosition();
    return this;
  }

  /** KIP-101 / KIP-279: keep only what both logs hold under the same epochs. */
  private void truncateToAgreement(long leaderEpoch, long leaderEnd) {
    long ours = leaderEpoch < 0 ? 0 : ctx.log.endOffsetForEpoch(leaderEpoch);
    // Never below this log's own start: what retention deleted here was committed, so it cannot diverge.
    long target = Math.max(Math.min(leaderEnd, ours), ctx.log.logStartOffset());
    long before = ctx.log.logEndOffset();
    if (target < before) {
      long after = ctx.log.truncateTo(target);
      ctx.forgetCacheIndex();
      ctx.actor.getLog().info("replica {} truncated its diverging suffix from {} to {} (leader epoch {} ends at {})",
          ctx.id, before, after, leaderEpoch, leaderEnd);
    }
  }

  /** A recovering replica has recovered once it stores the leader's log up to the commit offset it learned. */
  private Behavior<ShardReplica.Command> checkRecovered(Supplier<Behavior<ShardReplica.Command>> then) {
    if (ctx.recovering() && learnedCommit >= 0 && ctx.log.storedOffset() >= learnedCommit) {
      return ctx.recovered(this, then);
    }
    return then.get();
  }

  private Behavior<ShardReplica.Command> onStored(ShardReplica.Stored s) {
    return checkRecovered(() -> {
      reportIfMoved(); // the ack the leader waits for
      return this;
    });
  }

  /** The work tick, while work is pending: consumers whose wait ended, and the report of a refusal to lead. */
  private Behavior<ShardReplica.Command> onWorkTick() {
    long now = ctx.clock.nanoTime();
    ctx.reads.onTick(now, ctx.commitOffset);
    reportIfAssignedToLead(now);
    if (!hasPendingWork()) {
      ctx.timers.workDone();
    }
    return this;
  }

  private boolean hasPendingWork() {
    return ctx.reads.waiting() || assignment.leader() == ctx.brokerId;
  }

  private void workIfPending() {
    if (hasPendingWork()) {
      ctx.timers.workPending();
    }
  }

  /**
   * A follower read (allow_follower, felix_client.proto) is answered from the entries committed as far as this
   * replica knows, while it is caught up and has heard from its leader within felix.cache.follower-read-max-lag;
   * anything else is answered NOT_LEADER, and the broker asks the leader instead.
   */
  private Behavior<ShardReplica.Command> onCacheRead(ShardReplica.CacheRead r) {
    CacheReads cache = r.allowFollower() && inContactWithLeader() ? ctx.cacheReads() : null;
    if (cache == null) {
      r.reply().complete(ShardReplica.notLeader(ctx.id, knownLeader(), ctx.registry));
    } else {
      cache.read(r, ctx.commitOffset);
    }
    return this;
  }

  /**
   * In contact: the leader accepted the current position, and its broker answered this broker's fetch session
   * within the lag (it would have pushed anything new of this shard into that answer).
   */
  private boolean inContactWithLeader() {
    long maxLag = ctx.registry.cache().followerReadMaxLag().toNanos();
    if (maxLag <= 0 || !canFetch() || ctx.recovering() || !accepted) {
      return false;
    }
    long answered = ctx.registry.fetchers().lastAnswerNanos(assignment.leader());
    return answered != Long.MIN_VALUE && ctx.clock.nanoTime() - answered <= maxLag;
  }

  /**
   * A replica that the table names as leader but that refused to lead (see {@link ShardReplica#roleFor}) serves
   * nobody, and only the singleton can end that (with a newer epoch or another leader): it says so at once and
   * again every report interval until an assignment ends it.
   */
  private void reportIfAssignedToLead(long now) {
    if (assignment.leader() != ctx.brokerId) {
      return;
    }
    if (notServingReportedAtNanos == null
        || now - notServingReportedAtNanos >= ctx.registry.notServingInterval().toNanos()) {
      if (notServingReportedAtNanos == null) {
        ctx.actor.getLog().debug("replica {} reports that it is assigned to lead at epoch {} but does not ({})",
            ctx.id, assignment.leaderEpoch(), ctx.refusal);
      }
      notServingReportedAtNanos = now;
      ctx.registry.reportNotServing(ctx.id, assignment.leaderEpoch(), ctx.refusal);
    }
  }

  private Behavior<ShardReplica.Command> onAssign(ShardReplica.Assign a) {
    ShardAssignment next = a.assignment();
    if (next.leaderEpoch() < assignment.leaderEpoch()) {
      return this;
    }
    ctx.housekeepingIfDue(); // the stream's retention or segment size may have changed
    if (next.leader() == ctx.brokerId) {
      ctx.reads.releaseAll(ctx.commitOffset);
      ctx.unfollow();
      ctx.timers.workDone();
      return ShardReplica.roleFor(ctx, next);
    }
    boolean sameLeadership = next.leaderEpoch() == assignment.leaderEpoch() && next.leader() == assignment.leader();
    if (sameLeadership) {
      assignment = next; // e.g. a learner promoted to replica: the position stands
      publish();
      return this;
    }
    return follow(next, () -> {
      workIfPending();
      return this;
    });
  }
}
