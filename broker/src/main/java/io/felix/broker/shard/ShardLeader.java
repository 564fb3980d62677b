package io.felix.broker.shard;

import com.google.protobuf.UnsafeByteOperations;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.Errors;
import io.felix.broker.log.EpochEnd;
import io.felix.broker.log.InvalidBatchException;
import io.felix.broker.log.LogRead;
import io.felix.broker.log.ProducerStamp;
import io.felix.broker.log.ProducerStates;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The leader role of a shard replica at one epoch.
 *
 * <p>Appends: a produce is appended with the leader's epoch; its offsets are the log's. Followers fetch through
 * fetch sessions, one per follower broker (see {@link ShardFollower}): an entry in a session registers a follower's
 * position, and from then on the leader pushes what it appends into that session ({@link FollowerProgress} says
 * whom to ship what), one answer per follower at a time, the next once the follower reports that it appended the
 * last. An entry is also an ack: it carries the follower's stored offset. An idle shard exchanges no message.
 *
 * <p>Commit offset: {@link FollowerProgress#commitPoint}, the highest offset stored on a majority of the replica set
 * once that majority holds a record of this epoch (Raft's rule). So a new leader whose log is not empty first
 * appends an epoch marker (one empty batch) to have a record of its epoch to commit; consumers never see it.
 *
 * <p>Idempotent producers: a batch stamped with a producer id is checked against the log's {@link ProducerStates}
 * first. A duplicate (a retry of a batch this log holds, perhaps appended by an earlier leader) is not appended
 * again: it waits for the acks of the original and is answered with its original offset. A sequence gap or a stale
 * producer epoch is refused, not appended. The state is the log's, kept by every replica's appends, so a new
 * leader knows what its predecessors stored.
 *
 * <p>Fencing: an entry carrying a newer epoch, a FenceShard or a newer assignment stops appends at once; pending
 * producers then get TIMEOUT (outcome unknown). A fenced leader keeps serving its followers.
 *
 * <p>Timers: the work tick runs only while produces wait for acks, consumers wait, or an in-sync follower is behind
 * (it may leave the set); housekeeping only when due (see {@link ReplicaTimers}).
 */
final class ShardLeader extends AbstractBehavior<ShardReplica.Command> {
  private final ReplicaContext ctx;
  private ShardAssignment assignment;
  private final long epoch;
  private final long epochStart;
  private final PendingProduces pending;
  private final FollowerProgress followers;
  private long stored;
  private boolean fenced;
  /**
   * Leading with neither state nor log at the start (see {@link LeadRule}): a new shard, or a lost directory. It
   * takes no appends until a majority of the replica set agrees with its (empty) log; a follower that holds more
   * makes it step down instead.
   */
  private boolean provisional;
  private final Set<Integer> agreeing = new HashSet<>();
  private long nextProducerExpiryMillis;
  /** Whether this leader wrote an epoch marker: then its cache reads wait until the marker is committed. */
  private final boolean wroteMarker;
  /** A cache shard's reads (null for a stream's shard). */
  private final CacheReads cacheReads;

  private ShardLeader(ReplicaContext ctx, ShardAssignment assignment) {
    super(ctx.actor);
    this.ctx = ctx;
    this.assignment = assignment;
    this.epoch = assignment.leaderEpoch();
    this.pending = new PendingProduces(epoch, ctx.clock);
    this.provisional = ctx.recovering(); // never with a replica set of one: ShardReplica#roleFor stored it recovered
    long end = ctx.log.logEndOffset();
    if (end > 0 && ctx.log.lastEpoch() < epoch) {
      long now = ctx.clock.currentTimeMillis();
      this.epochStart = ctx.log.appendAsLeader(epoch, 1, now, now, ByteBuffer.allocate(0));
      this.wroteMarker = true;
    } else {
      this.epochStart = end;
      this.wroteMarker = false;
    }
    this.cacheReads = ctx.cacheReads();
    this.stored = ctx.log.storedOffset();
    this.followers = new FollowerProgress(ctx.brokerId, assignment, epochStart, ctx.settings, ctx.log::logEndOffset,
        () -> ctx.commitOffset, this::inSyncChanged);
    awaitStored(ctx.log.logEndOffset());
    reportReplication();
    ctx.unfollow();
    ctx.housekeepingIfDue();
    ctx.actor.getLog().debug("replica {} leads at epoch {} from offset {} (replicas {}, learners {})", ctx.id, epoch,
        epochStart, assignment.replicas(), assignment.learners());
  }

  static Behavior<ShardReplica.Command> create(ReplicaContext ctx, ShardAssignment assignment) {
    return new ShardLeader(ctx, assignment);
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ShardReplica.ClientProduce.class, this::onProduce)
        .onMessage(ShardReplica.Stored.class, this::onStored)
        .onMessage(ShardReplica.FollowerFetch.class, this::onFollowerFetch)
        .onMessage(ShardReplica.FollowerSessionEnded.class, this::onFollowerSessionEnded)
        .onMessage(ShardReplica.FetchResultArrived.class, r -> this)
        .onMessage(ShardReplica.ClientFetch.class, f -> {
          ctx.reads.fetch(f, ctx.commitOffset, true);
          workIfPending();
          return this;
        })
        .onMessageEquals(ShardReplica.Tick.WORK, this::onWorkTick)
        .onMessageEquals(ShardReplica.Tick.HOUSEKEEPING, this::onHousekeeping)
        .onMessage(ShardReplica.CacheRead.class, this::onCacheRead)
        .onMessage(ShardReplica.Assign.class, this::onAssign)
        .onMessage(ShardReplica.Fence.class, this::onFence)
        .onMessage(ShardReplica.Describe.class, d -> {
          d.replyTo().tell(status());
          return this;
        })
        .onMessage(ShardReplica.Digest.class, d -> {
          ShardReplica.digest(ctx, d);
          return this;
        })
        .onMessage(ShardReplica.LogFailed.class, this::onLogFailed)
        .onMessage(ShardReplica.Retire.class, r -> {
          pending.failAll("replica " + ctx.id + " was retired from this broker");
          return ShardReplica.retire(ctx, r);
        })
        .onSignal(PostStop.class, s -> {
          pending.failAll("broker stopping");
          ShardReplica.onPostStop(ctx, s);
          return this;
        })
        .build();
  }

  private Behavior<ShardReplica.Command> onProduce(ShardReplica.ClientProduce p) {
    ProduceRequest r = p.request();
    long arrived = ctx.clock.nanoTime();
    p.reply().whenComplete((response, failure) -> ctx.metrics.produceAnswered(r.getAcks().name().toLowerCase(),
        failure == null && (!response.hasError() || response.getError().getCode() == ErrorCode.NONE),
        Duration.ofNanos(ctx.clock.nanoTime() - arrived)));
    if (fenced || ctx.fencedAbove(epoch) || provisional) {
      // A provisional leader appends nothing: a record of its epoch written before it learns that it lost its
      // data would sit beside the committed records of the same epoch on other replicas, a fork no epoch shows.
      p.reply().complete(ShardReplica.notLeader(ctx.id, -1, ctx.registry));
      return this;
    }
    Duration timeout = r.getTimeoutMs() > 0 ? Duration.ofMillis(r.getTimeoutMs()) : ctx.settings.produceTimeout();
    expireIdleProducers();
    ProducerStamp producer;
    try {
      producer = IdempotentProduce.stampOf(r);
    } catch (IllegalArgumentException e) {
      p.reply().complete(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, e.getMessage())));
      return this;
    }
    if (producer.idempotent()) {
      ProducerStates.Verdict verdict = ctx.log.producers().check(producer, p.summary().count(),
          ctx.registry.refusedSequences().lowestRefused(ctx.id.stream(), ctx.id.shard(), producer));
      if (verdict.outcome() == ProducerStates.Outcome.DUPLICATE) {
        // Answered like the original: once the original batch meets this request's acks, with its offset.
        pending.add(r.getAcks(), verdict.baseOffset(), verdict.baseOffset() + p.summary().count(), timeout,
            p.reply());
        advanceCommit();
        workIfPending();
        return this;
      }
      if (verdict.outcome() != ProducerStates.Outcome.APPEND) {
        p.reply().complete(Errors.response(0, Errors.notAppended(IdempotentProduce.errorCodeOf(verdict),
            ctx.id + ": " + verdict.problem())));
        return this;
      }
    }
    long base;
    followers.beforeAppend(ctx.clock.nanoTime());
    try {
      base = ctx.log.appendAsLeader(epoch, p.summary().count(), p.summary().firstTimestamp(),
          p.summary().maxTimestamp(), producer, r.getRecords().asReadOnlyByteBuffer());
    } catch (InvalidBatchException e) {
      p.reply().complete(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, e.getMessage())));
      return this;
    } catch (RuntimeException e) {
      ctx.actor.getLog().error("replica {}: append failed, no longer accepting writes: {}", ctx.id, e.toString());
      fence("its log failed");
      p.reply().complete(Errors.response(0, Errors.of(ErrorCode.TIMEOUT, "append failed: " + e.getMessage())));
      return ctx.log.failed() ? FailedReplica.afterRunFailed(ctx, assignment, "an append failed: " + e.getMessage())
          : this;
    }
    long end = base + p.summary().count();
    ctx.metrics.recordAppended(ctx.id.stream(), p.summary().count(), r.getRecords().size());
    pending.add(r.getAcks(), base, end, timeout, p.reply());
    awaitStored(end);
    serveFollowers();
    workIfPending();
    ctx.housekeepingIfDue();
    return this;
  }

  /**
   * A cache read, answered from committed entries only, and only once this leader has committed an entry of its
   * own epoch (Raft's read rule: before that, entries its predecessor committed may lie above the commit offset it
   * knows, and it would serve an older value) and while a majority of the replica set is in contact.
   */
  private Behavior<ShardReplica.Command> onCacheRead(ShardReplica.CacheRead r) {
    if (cacheReads == null) {
      r.reply().complete(Errors.response(0, Errors.of(ErrorCode.UNKNOWN_CACHE, "'" + ctx.id.stream()
          + "' is a stream, not a cache")));
    } else if (fenced || ctx.fencedAbove(epoch) || provisional) {
      r.reply().complete(ShardReplica.notLeader(ctx.id, -1, ctx.registry));
    } else if (wroteMarker && ctx.commitOffset <= epochStart) {
      r.reply().complete(Errors.response(0, Errors.of(ErrorCode.TIMEOUT, ctx.id + ": the leader at epoch " + epoch
          + " has not committed its first entry yet; retry")));
    } else if (followers.inContact(ctx.clock.nanoTime()) < assignment.quorumSize()) {
      r.reply().complete(Errors.response(0, Errors.of(ErrorCode.NOT_ENOUGH_REPLICAS, ctx.id + ": fewer than "
          + assignment.quorumSize() + " replicas in contact; this leader may have been replaced")));
    } else {
      cacheReads.read(r, ctx.commitOffset);
    }
    return this;
  }

  private Behavior<ShardReplica.Command> onStored(ShardReplica.Stored s) {
    if (s.offset() > stored) {
      stored = s.offset();
      advanceCommit();
      serveFollowers();
    }
    return this;
  }

  private Behavior<ShardReplica.Command> onLogFailed(ShardReplica.LogFailed f) {
    if (f.log() != ctx.log) {
      return this;
    }
    fence(f.cause());
    return FailedReplica.afterRunFailed(ctx, assignment, f.cause());
  }

  /**
   * A follower's entry in its broker's fetch session: checked as every fetch always was (epoch, incarnation, replica
   * set, the log start, KIP-101 agreement), then taken as its position and ack; an entry that starts a position is
   * answered at once (with records, or empty with the commit offset: a new replica vouches for the shard once it has
   * learned one), later ones ship the next records once the follower has appended the last.
   */
  private Behavior<ShardReplica.Command> onFollowerFetch(ShardReplica.FollowerFetch f) {
    ReplicaFetch fetch = f.fetch();
    int from = f.fromBroker();
    if (fetch.getLeaderEpoch() > epoch) {
      fence("broker " + from + " follows epoch " + fetch.getLeaderEpoch());
    }
    if (fetch.getLeaderEpoch() != epoch) {
      ShardReplica.refuseFetch(f, epoch, FetchError.FETCH_EPOCH_MISMATCH);
      return this;
    }
    if (!fetch.getIncarnation().isEmpty() && !fetch.getIncarnation().equals(ctx.state().incarnation().toString())) {
      // Another incarnation of the stream (deleted and created again): its log is not ours to align or fill.
      ShardReplica.refuseFetch(f, epoch, FetchError.FETCH_INCARNATION_MISMATCH);
      return this;
    }
    if (!followers.tracks(from)) {
      ShardReplica.refuseFetch(f, epoch, FetchError.FETCH_NOT_LEADER); // not in the replica set or learners
      return this;
    }
    long offset = fetch.getFetchOffset();
    if (provisional && offset > ctx.log.logEndOffset()) {
      // Records this replica never had as a new shard's leader: it lost its directory. Telling the follower to
      // truncate would destroy them; step down instead, so a failover round chooses a replica that holds them.
      fence("broker " + from + " holds records up to offset " + offset + " that its log (end "
          + ctx.log.logEndOffset() + ") lacks: this replica lost its data and stays recovering");
      ShardReplica.refuseFetch(f, epoch, FetchError.FETCH_NOT_LEADER);
      return this;
    }
    if (offset < ctx.log.logStartOffset()) {
      followers.forgetPosition(from);
      deliver(f.session(), f.sessionId(), outOfRange(fetch)); // whatever its epochs say: retention deleted it
      return this;
    }
    EpochEnd agreed = ctx.log.epochEndFor(fetch.getLastFetchedEpoch());
    // An empty follower log (epoch -1) cannot diverge: it may start anywhere this log holds (after retention, or
    // after it started again at this log's start), not only where this log starts.
    boolean emptyWithin = fetch.getLastFetchedEpoch() < 0 && offset <= ctx.log.logEndOffset();
    if (!emptyWithin && (offset > ctx.log.logEndOffset() || agreed.epoch() != fetch.getLastFetchedEpoch()
        || offset > agreed.endOffset())) {
      followers.forgetPosition(from); // a diverged log's stored offset counts for nothing
      deliver(f.session(), f.sessionId(), result(fetch.getShard(), fetch.getFetchId(), offset)
          .setError(FetchError.FETCH_DIVERGING).setDivergingEpoch(agreed.epoch())
          .setDivergingEndOffset(agreed.endOffset()).build());
      return this;
    }
    if (completesAgreement(from)) {
      // A majority holds this provisional leader's log: once that is stored it vouches for the log and takes appends.
      return ctx.recovered(this, () -> {
        provisional = false;
        return acceptPosition(f);
      });
    }
    return acceptPosition(f);
  }

  /** Takes a follower's checked entry as its position and ack, and ships it what it lacks. */
  private Behavior<ShardReplica.Command> acceptPosition(ShardReplica.FollowerFetch f) {
    ReplicaFetch fetch = f.fetch();
    int from = f.fromBroker();
    long offset = fetch.getFetchOffset();
    long now = ctx.clock.nanoTime();
    ctx.metrics.replicationLag(ctx.id, from, ctx.log.logEndOffset() - offset);
    boolean starts = followers.startsPosition(from, f.sessionId(), fetch.getFetchId());
    followers.onEntry(from, f.session(), f.sessionId(), fetch.getFetchId(), offset, fetch.getDurableOffset(), now);
    if (starts) {
      ship(from); // its first answer goes at once, whatever it holds
    }
    advanceCommit();
    serveFollowers();
    workIfPending();
    return this;
  }

  /** The session of a follower's broker ended: it is no longer shipped to, and may leave the in-sync set. */
  private Behavior<ShardReplica.Command> onFollowerSessionEnded(ShardReplica.FollowerSessionEnded e) {
    if (followers.tracks(e.fromBroker())) {
      followers.sessionEnded(e.fromBroker(), e.sessionId(), ctx.clock.nanoTime());
      advanceCommit();
      workIfPending();
    }
    return this;
  }

  /**
   * The work tick, while work is pending: produces past their deadline fail, consumers whose wait ended get what is
   * committed, followers that fell behind for too long leave the in-sync set (which may meet acks=all).
   */
  private Behavior<ShardReplica.Command> onWorkTick() {
    long now = ctx.clock.nanoTime();
    followers.refresh(now);
    advanceCommit();
    if (!pending.isEmpty()) {
      pending.expire(now, timeoutError(now));
    }
    ctx.reads.onTick(now, ctx.commitOffset);
    if (!hasPendingWork()) {
      ctx.timers.workDone();
    }
    return this;
  }

  private Behavior<ShardReplica.Command> onHousekeeping() {
    ctx.housekeep();
    expireIdleProducers();
    return this;
  }

  private boolean hasPendingWork() {
    return !pending.isEmpty() || ctx.reads.waiting() || followers.inSyncBehind();
  }

  private void workIfPending() {
    if (hasPendingWork()) {
      ctx.timers.workPending();
    }
  }

  /** Forgets producers idle longer than producer-idle-expiry; looks once a minute, the table can be large. */
  private void expireIdleProducers() {
    long nowMillis = ctx.clock.currentTimeMillis();
    if (nowMillis < nextProducerExpiryMillis) {
      return;
    }
    nextProducerExpiryMillis = nowMillis + IdempotentProduce.EXPIRY_CHECK_INTERVAL.toMillis();
    int expired = ctx.log.producers().expireIdle(nowMillis, ctx.settings.producerIdleExpiry().toMillis());
    if (expired > 0) {
      ctx.actor.getLog().info("replica {} forgot {} idempotent producer(s) idle for more than {}", ctx.id, expired,
          ctx.settings.producerIdleExpiry());
    }
  }

  private Behavior<ShardReplica.Command> onAssign(ShardReplica.Assign a) {
    ShardAssignment next = a.assignment();
    if (next.leaderEpoch() < epoch) {
      return this;
    }
    if (next.leaderEpoch() == epoch && next.leader() == ctx.brokerId) {
      assignment = next; // same leadership, new replica set or learners (a move)
      followers.track(next);
      reportReplication();
      advanceCommit();
      serveFollowers();
      ctx.housekeepingIfDue(); // the stream's retention or segment size may have changed
      return this;
    }
    pending.failAll("leadership of " + ctx.id + " moved to epoch " + next.leaderEpoch());
    ctx.reads.releaseAll(ctx.commitOffset);
    ctx.metrics.underReplicated(ctx.id, false); // the new leader reports it
    ctx.timers.workDone();
    return ShardReplica.roleFor(ctx, next);
  }

  private Behavior<ShardReplica.Command> onFence(ShardReplica.Fence f) {
    return ctx.promise(f.newEpoch(), this, () -> {
      if (f.newEpoch() > epoch) {
        fence("fenced at epoch " + f.newEpoch());
      }
      f.replyTo().tell(status());
      return this;
    });
  }

  private ReplicaStatus status() {
    return ctx.leaderStatus(fenced ? ReplicaRole.FENCED : ReplicaRole.LEADER,
        followers.inSyncReplicas(ctx.clock.nanoTime()));
  }

  /**
   * Exports how many replicas are in sync, and so whether fewer than the replica set (a follower failed, down, slow),
   * and publishes the status with its in-sync set (see {@link ReplicaRegistry#published}): called when leadership
   * starts, the replica set changes or a follower joins or leaves the in-sync set.
   */
  private void reportReplication() {
    ReplicaStatus status = status();
    ctx.metrics.replicasInSync(ctx.id, status.inSync().size(), assignment.replicas().size());
    ctx.publish(status);
  }

  /**
   * A follower's log agrees with this one: whether, with it, a majority does, so that this provisional leader holds
   * what it should.
   */
  private boolean completesAgreement(int follower) {
    if (provisional && !fenced && assignment.replicas().contains(follower)) {
      agreeing.add(follower);
      return agreeing.size() + 1 >= assignment.quorumSize();
    }
    return false;
  }

  private void fence(String why) {
    if (!fenced) {
      fenced = true;
      ctx.publish(status());
      ctx.actor.getLog().debug("replica {} stops taking appends at epoch {}: {}", ctx.id, epoch, why);
      pending.failAll("leadership of " + ctx.id + " at epoch " + epoch + " ended (" + why + ")");
    }
  }

  /**
   * Ships what each ready follower lacks (see {@link FollowerProgress#ready}): the records after what it was shipped,
   * or only a newer commit offset. Called whenever the log, the commit offset or a follower's position moves.
   */
  private void serveFollowers() {
    long end = ctx.log.logEndOffset();
    for (int follower : followers.brokers()) {
      if (followers.ready(follower)
          && (followers.shippedTo(follower) < end || followers.commitSent(follower) < ctx.commitOffset)) {
        ship(follower);
      }
    }
  }

  /** Sends {@code follower} the batches after what it was shipped (none when it has them all) and the commit offset. */
  private void ship(int follower) {
    long from = followers.shippedTo(follower);
    SessionLink session = followers.session(follower);
    long sessionId = followers.sessionId(follower);
    ReplicaFetchResult.Builder result = result(ShardRefs.toRef(ctx.id), followers.fetchId(follower), from);
    if (from < ctx.log.logStartOffset()) {
      followers.forgetPosition(follower); // retention ran while it was parked
      deliver(session, sessionId, outOfRange(result));
      return;
    }
    long next = from;
    if (from < ctx.log.logEndOffset()) {
      LogRead read = ctx.log.read(from, ctx.settings.fetchMaxBytes());
      result.setBatches(UnsafeByteOperations.unsafeWrap(read.batches()));
      next = read.isEmpty() ? from : read.nextOffset();
    }
    followers.shipped(follower, next, ctx.commitOffset);
    deliver(session, sessionId, result.build());
  }

  private static void deliver(SessionLink session, long sessionId, ReplicaFetchResult result) {
    session.deliver(sessionId, result);
  }

  /** The follower asks for records retention deleted: it must start again at this log's start. */
  private ReplicaFetchResult outOfRange(ReplicaFetch fetch) {
    return outOfRange(result(fetch.getShard(), fetch.getFetchId(), fetch.getFetchOffset()));
  }

  private ReplicaFetchResult outOfRange(ReplicaFetchResult.Builder result) {
    return result.setError(FetchError.FETCH_OFFSET_OUT_OF_RANGE).setLeaderLogStartOffset(ctx.log.logStartOffset())
        .build();
  }

  private ReplicaFetchResult.Builder result(io.felix.protocol.replication.ShardRef shard, long fetchId,
      long fetchOffset) {
    return ReplicaFetchResult.newBuilder().setShard(shard).setLeaderEpoch(epoch)
        .setFetchId(fetchId).setFetchOffset(fetchOffset).setCommitOffset(ctx.commitOffset)
        .setLeaderLogEndOffset(ctx.log.logEndOffset());
  }

  private void inSyncChanged(int broker, boolean learner, boolean joined, long fetchOffset) {
    if (!learner) {
      reportReplication();
      ctx.actor.getLog().debug("replica {}: broker {} {} the in-sync set at epoch {} (fetched up to {}, log end {})",
          ctx.id, broker, joined ? "joined" : "left", epoch, fetchOffset, ctx.log.logEndOffset());
    }
  }

  private void advanceCommit() {
    followers.commitPoint(stored).ifPresent(ctx::commitTo);
    if (!pending.isEmpty()) {
      long now = ctx.clock.nanoTime();
      pending.complete(ctx.commitOffset, stored,
          end -> end <= ctx.commitOffset && followers.inSyncStored(end, now));
    }
  }

  private Error timeoutError(long now) {
    int inContact = followers.inContact(now);
    if (inContact < assignment.quorumSize()) {
      return Errors.of(ErrorCode.NOT_ENOUGH_REPLICAS, "only " + inContact + " of " + assignment.replicas().size()
          + " replicas of " + ctx.id + " are in contact, " + assignment.quorumSize() + " needed; the batch was "
          + "appended by the leader and may or may not be committed later");
    }
    return Errors.of(ErrorCode.TIMEOUT, "the acks of " + ctx.id + " were not met in time; the batch was appended "
        + "by the leader and may or may not be committed later");
  }

  private void awaitStored(long offset) {
    if (offset <= stored) {
      return;
    }
    ctx.log.awaitStored(offset).whenComplete((off, failure) -> {
      if (failure == null) {
        ctx.actor.getSelf().tell(new ShardReplica.Stored(off));
      } else {
        ShardReplica.reportFailure(ctx, failure);
      }
    });
  }
}
