package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The follower role (also a learner's): pulls the leader's log, one fetch in flight at a time.
 *
 * <p>Each fetch names the follower's log end, the epoch of its last batch and its stored offset (the ack: only
 * what the log reports stored, so every ack is true). The leader first checks that the two logs agree up to there
 * (KIP-101); when they do not it answers with where they part, the follower truncates and fetches again. After an
 * append the next fetch leaves at once (the fsync overlaps the next round trip), and when the fsync completes a
 * separate ack-only fetch carries the new stored offset (the leader records it and ships nothing for it).
 *
 * <p>Nothing relies on one message arriving: a fetch unanswered within fetch-timeout is sent again; an answer is
 * used only if it continues the log exactly where it ends now (its fetch offset equals the log end) under the
 * current epoch, so answers to older, resent or reordered fetches are harmless.
 *
 * <p>Without a leader, or with an assignment older than the fence, the follower is idle and fetches nothing.
 */
final class ShardFollower extends AbstractBehavior<ShardReplica.Command> {
  private static final long RETRY_NANOS = 100_000_000L;

  private final ReplicaContext ctx;
  private ShardAssignment assignment;
  private long fetchId;
  /** Whether a fetch is out and unanswered (a new one replaces it: the leader keeps only the latest). */
  private boolean outstanding;
  private long sentAtNanos;
  private long nextFetchAtNanos;
  /** The stored offset the last fetch reported: a higher one is worth an ack of its own. */
  private long reportedStored = -1;
  /** The highest commit offset the current leader has sent, -1 before its first answer. */
  private long learnedCommit = -1;
  /** The incarnation mismatch was logged for the current leadership (it is said once, not on every retry). */
  private boolean mismatchLogged;
  /** When this replica last told the singleton it is assigned to lead but does not; null before the first time. */
  private Long notServingReportedAtNanos;
  /** When the current leader last answered a fetch (what follower reads are as fresh as); null before then. */
  private Long heardFromLeaderAtNanos;

  private ShardFollower(ReplicaContext ctx, ShardAssignment assignment) {
    super(ctx.actor);
    this.ctx = ctx;
    follow(assignment);
  }

  static Behavior<ShardReplica.Command> create(ReplicaContext ctx, ShardAssignment assignment) {
    return new ShardFollower(ctx, assignment);
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ShardReplica.FetchResultArrived.class, this::onFetchResult)
        .onMessage(ShardReplica.Stored.class, this::onStored)
        .onMessageEquals(ShardReplica.Tick.INSTANCE, this::onTick)
        .onMessage(ShardReplica.ClientProduce.class, p -> {
          p.reply().complete(ShardReplica.notLeader(ctx.id, knownLeader(), ctx.registry));
          return this;
        })
        .onMessage(ShardReplica.CacheRead.class, this::onCacheRead)
        .onMessage(ShardReplica.ClientFetch.class, f -> {
          ctx.reads.fetch(f, ctx.commitOffset, false);
          return this;
        })
        .onMessage(ShardReplica.FollowerFetch.class, f -> {
          ShardReplica.refuseFetch(ctx, f, assignment.leaderEpoch(), FetchError.FETCH_NOT_LEADER);
          return this;
        })
        .onMessage(ShardReplica.Assign.class, this::onAssign)
        .onMessage(ShardReplica.Fence.class, f -> {
          ctx.promise(f.newEpoch());
          f.replyTo().tell(ctx.status(role(), false));
          return this;
        })
        .onMessage(ShardReplica.Describe.class, d -> {
          d.replyTo().tell(ctx.status(role(), false));
          return this;
        })
        .onMessage(ShardReplica.Digest.class, d -> {
          ShardReplica.digest(ctx, d);
          return this;
        })
        .onMessage(ShardReplica.LogFailed.class, f -> f.log() == ctx.log
            ? FailedReplica.afterRunFailed(ctx, assignment, f.cause()) : this)
        .onMessage(ShardReplica.Retire.class, r -> ShardReplica.retire(ctx, r))
        .onSignal(PostStop.class, s -> {
          ShardReplica.onPostStop(ctx, s);
          return this;
        })
        .build();
  }

  private void follow(ShardAssignment a) {
    assignment = a;
    outstanding = false;
    learnedCommit = -1;
    heardFromLeaderAtNanos = null;
    if (a.leader() != ShardAssignment.NO_LEADER && a.leader() != ctx.brokerId && !canFetch()) {
      ctx.actor.getLog().info("replica {} will not follow broker {} at epoch {}: it has promised epoch {}", ctx.id,
          a.leader(), a.leaderEpoch(), ctx.promisedEpoch());
    }
    if (canFetch()) {
      ctx.promise(a.leaderEpoch()); // before the first fetch: it acks, and acks count only under the promise
      ctx.actor.getLog().info("replica {} follows broker {} at epoch {}{} from offset {} (last epoch {})", ctx.id,
          a.leader(), a.leaderEpoch(), isLearner() ? " as a learner" : "", ctx.log.logEndOffset(), ctx.log.lastEpoch());
      sendFetch();
    }
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

  private void sendFetch() {
    outstanding = true;
    fetchId++;
    sentAtNanos = ctx.clock.nanoTime();
    ctx.send(assignment.leader(), ReplicationFrame.newBuilder().setFetch(fetch()).build());
  }

  /** Reports a higher stored offset without asking for records (the regular fetch is already out). */
  private void sendAck() {
    ctx.send(assignment.leader(), ReplicationFrame.newBuilder().setFetch(fetch().setAckOnly(true)).build());
  }

  private ReplicaFetch.Builder fetch() {
    reportedStored = ctx.log.storedOffset();
    return ReplicaFetch.newBuilder()
        .setShard(ShardRefs.toRef(ctx.id)).setLeaderEpoch(assignment.leaderEpoch())
        .setFollowerId(ctx.brokerId).setFetchOffset(ctx.log.logEndOffset()).setLastFetchedEpoch(ctx.log.lastEpoch())
        .setDurableOffset(reportedStored).setMaxBytes(ctx.settings.fetchMaxBytes()).setFetchId(fetchId)
        .setIncarnation(ctx.state().incarnation().toString());
  }

  private Behavior<ShardReplica.Command> onFetchResult(ShardReplica.FetchResultArrived arrived) {
    ReplicaFetchResult r = arrived.result();
    if (arrived.fromBroker() != assignment.leader() || !canFetch()
        || r.getFetchOffset() != ctx.log.logEndOffset()) {
      return this; // not from our leader, no longer wanted, or answers a fetch from another log end (older, resent)
    }
    if (r.getError() == FetchError.FETCH_INCARNATION_MISMATCH) {
      if (!mismatchLogged) {
        mismatchLogged = true;
        ctx.actor.getLog().warn("replica {} (incarnation {}): broker {} leads another incarnation of the stream at "
            + "epoch {}; nothing is copied or truncated", ctx.id, ctx.state().incarnation(), arrived.fromBroker(),
            r.getLeaderEpoch());
      }
      if (r.getFetchId() == fetchId) {
        outstanding = false;
        nextFetchAtNanos = ctx.clock.nanoTime() + RETRY_NANOS;
      }
      return this;
    }
    if (r.getLeaderEpoch() != assignment.leaderEpoch() || r.getError() == FetchError.FETCH_EPOCH_MISMATCH
        || r.getError() == FetchError.FETCH_NOT_LEADER || r.getError() == FetchError.FETCH_REPLICA_FAILED) {
      if (r.getFetchId() == fetchId) {
        outstanding = false;
        nextFetchAtNanos = ctx.clock.nanoTime() + RETRY_NANOS; // the leader is not there yet (or any more)
      }
      return this;
    }
    if (r.getError() == FetchError.FETCH_OFFSET_OUT_OF_RANGE) {
      return restartAtLeaderStart(r);
    }
    if (r.getError() == FetchError.FETCH_DIVERGING) {
      try {
        truncateToAgreement(r.getDivergingEpoch(), r.getDivergingEndOffset());
      } catch (RuntimeException e) {
        if (ctx.log.failed()) {
          return FailedReplica.afterRunFailed(ctx, assignment, "a truncation failed: " + e.getMessage());
        }
        throw e;
      }
      sendFetch();
      return this;
    }
    outstanding = false;
    learnedCommit = Math.max(learnedCommit, r.getCommitOffset());
    heardFromLeaderAtNanos = ctx.clock.nanoTime();
    if (r.getBatches().isEmpty()) {
      ctx.commitTo(r.getCommitOffset());
      checkRecovered();
      sendFetch();
      return this;
    }
    long end;
    try {
      end = ctx.log.appendReplicated(r.getBatches().asReadOnlyByteBuffer());
    } catch (RuntimeException e) {
      if (ctx.log.failed()) {
        ctx.actor.getLog().error("replica {}: appending batches from broker {} failed: {}", ctx.id,
            arrived.fromBroker(), e.getMessage());
        return FailedReplica.afterRunFailed(ctx, assignment, "an append failed: " + e.getMessage());
      }
      ctx.actor.getLog().warn("replica {}: batches from broker {} refused ({}); fetching again", ctx.id,
          arrived.fromBroker(), e.getMessage());
      nextFetchAtNanos = ctx.clock.nanoTime() + RETRY_NANOS;
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
    sendFetch();
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
      outstanding = false; // the leader's start moved under an older fetch: ask again
      nextFetchAtNanos = ctx.clock.nanoTime() + RETRY_NANOS;
      return this;
    }
    try {
      ctx.log.restartAt(leaderStart);
      ctx.forgetCacheIndex();
    } catch (RuntimeException e) {
      if (ctx.log.failed()) {
        return FailedReplica.afterRunFailed(ctx, assignment, "restarting the log failed: " + e.getMessage());
      }
      throw e;
    }
    ctx.metrics.logStartOffset(ctx.id, leaderStart);
    ctx.actor.getLog().info("replica {}: its log ends at {}, below the log start {} of leader {} (retention): "
        + "dropped it and copies from {}", ctx.id, end, leaderStart, assignment.leader(), leaderStart);
    sendFetch();
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
  private void checkRecovered() {
    if (ctx.recovering() && learnedCommit >= 0 && ctx.log.storedOffset() >= learnedCommit) {
      ctx.recovered();
    }
  }

  private Behavior<ShardReplica.Command> onStored(ShardReplica.Stored s) {
    checkRecovered();
    if (canFetch() && s.offset() > reportedStored) {
      if (outstanding) {
        sendAck(); // the ack the leader waits for; the fetch that is out stays as it is
      } else {
        sendFetch();
      }
    }
    return this;
  }

  private Behavior<ShardReplica.Command> onTick() {
    long now = ctx.clock.nanoTime();
    if (canFetch()) {
      if (outstanding && now - sentAtNanos >= ctx.settings.fetchTimeout().toNanos()) {
        sendFetch(); // lost on the way, or its answer was: ask again
      } else if (!outstanding && now - nextFetchAtNanos >= 0) {
        sendFetch();
      }
    }
    ctx.reads.onTick(now, ctx.commitOffset);
    ctx.enforceRetention(now);
    CacheReads cache = ctx.cacheReads();
    if (cache != null) {
      cache.onTick(ctx.commitOffset); // indexes what was committed, compacts and checkpoints, as on the leader
    }
    reportIfAssignedToLead(now);
    return this;
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

  private boolean inContactWithLeader() {
    long maxLag = ctx.registry.cache().followerReadMaxLag().toNanos();
    return maxLag > 0 && canFetch() && !ctx.recovering() && heardFromLeaderAtNanos != null
        && ctx.clock.nanoTime() - heardFromLeaderAtNanos <= maxLag;
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
        ctx.actor.getLog().info("replica {} reports that it is assigned to lead at epoch {} but does not ({})",
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
    if (next.leader() == ctx.brokerId) {
      ctx.reads.releaseAll(ctx.commitOffset);
      return ShardReplica.roleFor(ctx, next);
    }
    boolean sameLeadership = next.leaderEpoch() == assignment.leaderEpoch() && next.leader() == assignment.leader();
    if (sameLeadership) {
      assignment = next; // e.g. a learner promoted to replica: keep the fetch in flight
      return this;
    }
    follow(next);
    return this;
  }
}
