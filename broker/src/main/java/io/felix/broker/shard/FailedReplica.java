package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.ShardLog;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.replication.FetchError;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * The failed role of a shard replica: its log could not be opened (corrupt durable data, an unreadable directory) or
 * a write, fsync or truncation failed while it ran (a full disk, a file-size limit). It serves nothing: producers and
 * consumers get NOT_LEADER (retriable, they look for the leader elsewhere), followers FETCH_REPLICA_FAILED, and
 * Describe, Fence and Digest answer FAILED, so the control plane neither promotes it nor counts it in sync, and its
 * {@link io.felix.broker.control.LeaderCheck} fails the shard over when it was the leader.
 *
 * <p>Every {@code felix.log.reopen-interval} (on the replica's work tick, which runs while it is failed) it tries to open the log again. Once that
 * succeeds it takes its role from the newest assignment it was told (see {@link ShardReplica#roleFor}), with one
 * rule of its own: it never leads at an epoch it was assigned to lead while failed or when it failed. It may have
 * lost records it had already shipped under that epoch, so leading again at it could fork the log without an epoch
 * showing it; it follows instead and leads only when a failover gives it a newer epoch.
 *
 * <p>While the assignment names it as the leader, it tells the singleton so on its tick, once per
 * {@link ReplicaRegistry#notServingInterval}, as a refusing follower does: the failover need not wait for the
 * singleton's own leader check to ask twice.
 */
final class FailedReplica extends AbstractBehavior<ShardReplica.Command> {
  private final ReplicaWiring wiring;
  private ShardAssignment assignment;
  private long fenceEpoch;
  private String cause;
  private long nextAttemptNanos;
  private int attempts;
  private Long notServingReportedAtNanos;

  private FailedReplica(ReplicaWiring wiring, ShardAssignment assignment, long fenceEpoch, String cause) {
    super(wiring.actor());
    this.wiring = wiring;
    this.fenceEpoch = fenceEpoch;
    this.cause = cause;
    this.nextAttemptNanos = wiring.clock().nanoTime() + wiring.opener().reopenInterval().toNanos();
    observe(assignment);
    wiring.registry().publish(wiring.actor().getSelf(), ReplicaStatus.failed(wiring.id(), wiring.brokerId()));
    wiring.timers().workPending(); // reopen attempts and reports, until it is no longer failed
    wiring.actor().getLog().warn("replica {} on broker {} is FAILED and serves nothing ({}); it tries to open its log "
        + "in {} again every {}", wiring.id(), wiring.brokerId(), cause, wiring.opener().dir(),
        wiring.opener().reopenInterval());
  }

  /** The log could not be opened when the replica started. */
  static Behavior<ShardReplica.Command> afterOpenFailed(ReplicaWiring wiring, ShardAssignment assignment,
      String cause) {
    return new FailedReplica(wiring, assignment, -1, cause);
  }

  /**
   * The log failed while the replica ran in {@code ctx}: it is closed here (without the fsync of a clean close, which
   * would fail too) and the replica's fence carries over.
   */
  static Behavior<ShardReplica.Command> afterRunFailed(ReplicaContext ctx, ShardAssignment assignment,
      String cause) {
    ctx.unfollow();
    ctx.reads.releaseAll(ctx.commitOffset);
    ShardReplica.closeLog(ctx, false);
    ctx.metrics.shardReleased(ctx.id);
    return new FailedReplica(ctx.wiring, assignment, ctx.promisedEpoch(), cause);
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessageEquals(ShardReplica.Tick.WORK, this::onTick)
        .onMessageEquals(ShardReplica.Tick.HOUSEKEEPING, () -> this)
        .onMessage(ShardReplica.FollowerSessionEnded.class, e -> this)
        .onMessage(ShardReplica.Assign.class, a -> {
          if (a.assignment().leaderEpoch() >= assignment.leaderEpoch()) {
            observe(a.assignment());
          }
          return this;
        })
        .onMessage(ShardReplica.Describe.class, d -> {
          d.replyTo().tell(ReplicaStatus.failed(wiring.id(), wiring.brokerId()));
          return this;
        })
        .onMessage(ShardReplica.Digest.class, d -> {
          d.replyTo().tell(ReplicaDigest.without(wiring.id(), wiring.brokerId(), ReplicaDigest.Outcome.FAILED,
              unavailable()));
          return this;
        })
        .onMessage(ShardReplica.Fence.class, f -> {
          fenceEpoch = Math.max(fenceEpoch, f.newEpoch());
          f.replyTo().tell(ReplicaStatus.failed(wiring.id(), wiring.brokerId()));
          return this;
        })
        .onMessage(ShardReplica.ClientProduce.class, p -> {
          p.reply().complete(Errors.response(0, Errors.notAppended(ErrorCode.NOT_LEADER, unavailable())));
          return this;
        })
        .onMessage(ShardReplica.ClientFetch.class, f -> {
          f.reply().complete(Errors.response(0, Errors.of(ErrorCode.NOT_LEADER, unavailable())));
          return this;
        })
        .onMessage(ShardReplica.CacheRead.class, r -> {
          r.reply().complete(Errors.response(0, Errors.of(ErrorCode.NOT_LEADER, unavailable())));
          return this;
        })
        .onMessage(ShardReplica.FollowerFetch.class, f -> {
          ShardReplica.refuseFetch(f, assignment.leaderEpoch(), FetchError.FETCH_REPLICA_FAILED);
          return this;
        })
        .onMessage(ShardReplica.Retire.class, r -> Behaviors.stopped())
        .build();
  }

  private void reportIfAssignedToLead(long now) {
    if (assignment.leader() != wiring.brokerId()) {
      notServingReportedAtNanos = null;
      return;
    }
    ReplicaRegistry registry = wiring.registry();
    if (notServingReportedAtNanos == null
        || now - notServingReportedAtNanos >= registry.notServingInterval().toNanos()) {
      notServingReportedAtNanos = now;
      registry.reportNotServing(wiring.id(), assignment.leaderEpoch(), NotServingReason.LOG_FAILED);
    }
  }

  /** Keeps the newest assignment; an epoch it is told to lead at while failed is one it will never lead at. */
  private void observe(ShardAssignment a) {
    assignment = a;
    if (a.leader() == wiring.brokerId()) {
      fenceEpoch = Math.max(fenceEpoch, a.leaderEpoch() + 1);
    }
  }

  private Behavior<ShardReplica.Command> onTick() {
    long now = wiring.clock().nanoTime();
    reportIfAssignedToLead(now);
    if (now - nextAttemptNanos < 0) {
      return this;
    }
    nextAttemptNanos = now + wiring.opener().reopenInterval().toNanos();
    attempts++;
    ReplicaContext ctx;
    try {
      ctx = wiring.open(assignment);
    } catch (Exception e) {
      return stillFailed(e.getMessage());
    }
    // A fence taken while failed, or an epoch it was told to lead at then, is promised before anything acts.
    return ctx.store(ctx.state().promise(fenceEpoch), null, () -> {
      ShardLog log = ctx.log;
      wiring.actor().getLog().info("replica {} on broker {} reopened its log after {} attempt(s): log end {}, last "
          + "epoch {}; it takes its role at epoch {}", wiring.id(), wiring.brokerId(), attempts, log.logEndOffset(),
          log.lastEpoch(), assignment.leaderEpoch());
      return ShardReplica.roleFor(ctx, assignment);
    }, failure -> {
      ShardReplica.closeLog(ctx, false);
      return stillFailed(failure);
    });
  }

  private Behavior<ShardReplica.Command> stillFailed(String why) {
    cause = why;
    wiring.actor().getLog().warn("replica {} on broker {} is still FAILED: attempt {} to open its log failed ({}); "
        + "next attempt in {}", wiring.id(), wiring.brokerId(), attempts, cause, wiring.opener().reopenInterval());
    return this;
  }

  private String unavailable() {
    return "the replica of " + wiring.id() + " on broker " + wiring.brokerId() + " has failed (" + cause + ")";
  }
}
