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
 * <p>Each fetch names the follower's log end, the epoch of its last batch and its stored offset (the ack). The
 * leader first checks that the two logs agree up to there (KIP-101); when they do not it answers with where they
 * part, the follower truncates and fetches again. Nothing relies on one message arriving: a fetch unanswered
 * within fetch-timeout is sent again, answers to older fetches (fetch id) or other epochs are dropped, and after
 * appending the follower sends its next fetch only once the batch is stored, so every ack is true.
 *
 * <p>Without a leader, or with an assignment older than the fence, the follower is idle and fetches nothing.
 */
final class ShardFollower extends AbstractBehavior<ShardReplica.Command> {
  private static final long RETRY_NANOS = 100_000_000L;

  private final ReplicaContext ctx;
  private ShardAssignment assignment;
  private long fetchId;
  private long outstanding = -1;
  private long sentAtNanos;
  private long nextFetchAtNanos;
  private long awaitingStored = -1;

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
          ctx.fenceEpoch = Math.max(ctx.fenceEpoch, f.newEpoch());
          f.replyTo().tell(ctx.status(role(), false));
          return this;
        })
        .onMessage(ShardReplica.Describe.class, d -> {
          d.replyTo().tell(ctx.status(role(), false));
          return this;
        })
        .onMessage(ShardReplica.Retire.class, r -> ShardReplica.retire(ctx, r))
        .onSignal(PostStop.class, s -> {
          ShardReplica.onPostStop(ctx, s);
          return this;
        })
        .build();
  }

  private void follow(ShardAssignment a) {
    assignment = a;
    outstanding = -1;
    awaitingStored = -1;
    if (canFetch()) {
      ctx.actor.getLog().info("replica {} follows broker {} at epoch {}{} from offset {} (last epoch {})", ctx.id,
          a.leader(), a.leaderEpoch(), isLearner() ? " as a learner" : "", ctx.log.logEndOffset(), ctx.log.lastEpoch());
      sendFetch();
    }
  }

  private boolean canFetch() {
    return assignment.leader() != ShardAssignment.NO_LEADER && assignment.leader() != ctx.brokerId
        && assignment.leaderEpoch() >= ctx.fenceEpoch;
  }

  private boolean isLearner() {
    return assignment.learners().contains(ctx.brokerId) && !assignment.replicas().contains(ctx.brokerId);
  }

  private int knownLeader() {
    return canFetch() ? assignment.leader() : -1;
  }

  private String role() {
    if (!canFetch() && assignment.leaderEpoch() < ctx.fenceEpoch) {
      return "fenced";
    }
    return isLearner() ? "learner" : "follower";
  }

  private void sendFetch() {
    outstanding = ++fetchId;
    sentAtNanos = System.nanoTime();
    ctx.send(assignment.leader(), ReplicationFrame.newBuilder().setFetch(ReplicaFetch.newBuilder()
        .setShard(ControlMessageSerializer.ref(ctx.id)).setLeaderEpoch(assignment.leaderEpoch())
        .setFollowerId(ctx.brokerId).setFetchOffset(ctx.log.logEndOffset()).setLastFetchedEpoch(ctx.log.lastEpoch())
        .setDurableOffset(ctx.log.storedOffset()).setMaxBytes(ctx.settings.fetchMaxBytes()).setFetchId(outstanding))
        .build());
  }

  private Behavior<ShardReplica.Command> onFetchResult(ShardReplica.FetchResultArrived arrived) {
    ReplicaFetchResult r = arrived.result();
    if (r.getFetchId() != outstanding || arrived.fromBroker() != assignment.leader() || !canFetch()) {
      return this; // an answer to an older fetch (resent, or from before a reconnect), or no longer wanted
    }
    outstanding = -1;
    if (r.getLeaderEpoch() != assignment.leaderEpoch() || r.getError() == FetchError.FETCH_EPOCH_MISMATCH
        || r.getError() == FetchError.FETCH_NOT_LEADER || r.getError() == FetchError.FETCH_REPLICA_FAILED) {
      nextFetchAtNanos = System.nanoTime() + RETRY_NANOS; // the leader is not there yet (or any more): ask again
      return this;
    }
    if (r.getError() == FetchError.FETCH_DIVERGING) {
      truncateToAgreement(r.getDivergingEpoch(), r.getDivergingEndOffset());
      sendFetch();
      return this;
    }
    if (r.getFetchOffset() != ctx.log.logEndOffset()) {
      sendFetch();
      return this;
    }
    if (r.getBatches().isEmpty()) {
      ctx.commitTo(r.getCommitOffset());
      sendFetch();
      return this;
    }
    long end;
    try {
      end = ctx.log.appendReplicated(r.getBatches().asReadOnlyByteBuffer());
    } catch (RuntimeException e) {
      ctx.actor.getLog().warn("replica {}: batches from broker {} refused ({}); fetching again", ctx.id,
          arrived.fromBroker(), e.getMessage());
      nextFetchAtNanos = System.nanoTime() + RETRY_NANOS;
      return this;
    }
    ctx.commitTo(r.getCommitOffset());
    awaitingStored = end;
    ctx.log.awaitStored(end).whenComplete((off, failure) -> {
      if (failure == null) {
        ctx.actor.getSelf().tell(new ShardReplica.Stored(off));
      }
    });
    return this;
  }

  /** KIP-101 / KIP-279: keep only what both logs hold under the same epochs. */
  private void truncateToAgreement(long leaderEpoch, long leaderEnd) {
    long ours = leaderEpoch < 0 ? 0 : ctx.log.endOffsetForEpoch(leaderEpoch);
    long target = Math.min(leaderEnd, ours);
    long before = ctx.log.logEndOffset();
    if (target < before) {
      long after = ctx.log.truncateTo(target);
      ctx.actor.getLog().info("replica {} truncated its diverging suffix from {} to {} (leader epoch {} ends at {})",
          ctx.id, before, after, leaderEpoch, leaderEnd);
    }
  }

  private Behavior<ShardReplica.Command> onStored(ShardReplica.Stored s) {
    if (awaitingStored >= 0 && s.offset() >= awaitingStored) {
      awaitingStored = -1;
      if (canFetch()) {
        sendFetch();
      }
    }
    return this;
  }

  private Behavior<ShardReplica.Command> onTick() {
    long now = System.nanoTime();
    if (canFetch() && awaitingStored < 0) {
      if (outstanding >= 0 && now - sentAtNanos >= ctx.settings.fetchTimeout().toNanos()) {
        sendFetch(); // lost on the way, or its answer was: ask again
      } else if (outstanding < 0 && now - nextFetchAtNanos >= 0) {
        sendFetch();
      }
    }
    ctx.reads.onTick(now, ctx.commitOffset);
    return this;
  }

  private Behavior<ShardReplica.Command> onAssign(ShardReplica.Assign a) {
    ShardAssignment next = a.assignment();
    if (next.leaderEpoch() < assignment.leaderEpoch()) {
      return this;
    }
    if (next.leader() == ctx.brokerId) {
      ctx.reads.releaseAll(ctx.commitOffset);
      return ShardReplica.roleFor(ctx, next, false);
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
