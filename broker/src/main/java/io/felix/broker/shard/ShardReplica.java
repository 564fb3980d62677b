package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.protocol.Errors;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One replica of one shard on this broker: the single owner of its {@link ShardLog}. Its behaviour is its role:
 * <ul>
 *   <li>{@link ShardLeader}: assigns offsets, appends, serves followers' fetches, advances the commit offset,
 *       answers producers (also when fenced: then it takes no appends but keeps serving its log);
 *   <li>{@link ShardFollower}: pulls from the leader (also a learner, or idle without a leader or when fenced);
 *   <li>failed: the log could not be opened (corrupt durable data); it serves nothing and says so.
 * </ul>
 * Transitions come from {@link Assign} (a newer assignment from {@link ReplicaDirectory}) and from epochs: any
 * message carrying a newer epoch than a leader's makes it stop taking appends at once.
 */
public final class ShardReplica {

  public sealed interface Command permits Assign, Fence, Describe, ClientProduce, ClientFetch, FollowerFetch,
      FetchResultArrived, Stored, Tick, Retire {}

  /** The shard's current assignment (role, leader, epoch, replica set) from the newest table. */
  public record Assign(ShardAssignment assignment) implements Command {}

  /** FenceShard: adopt {@code newEpoch} as the fence, then reply with the status. */
  public record Fence(long newEpoch, ActorRef<ReplicaStatus> replyTo) implements Command {}

  public record Describe(ActorRef<ReplicaStatus> replyTo) implements Command {}

  /** A validated produce from a client (or forwarded by another broker in plain mode). */
  public record ClientProduce(ProduceRequest request, RecordListSummary summary, CompletableFuture<Response> reply)
      implements Command {}

  /** A consumer fetch; {@code maxBytes} and {@code waitMs} are already capped by the listener. */
  public record ClientFetch(FetchRequest request, int maxBytes, long waitMs, CompletableFuture<Response> reply)
      implements Command {}

  /** A follower's fetch (and ack) that arrived over the replication connection. */
  public record FollowerFetch(int fromBroker, ReplicaFetch fetch) implements Command {}

  /** The leader's answer to this replica's fetch. */
  public record FetchResultArrived(int fromBroker, ReplicaFetchResult result) implements Command {}

  /** The log reports everything below {@code offset} stored (fsynced under flush = always). */
  public record Stored(long offset) implements Command {}

  enum Tick implements Command { INSTANCE }

  /** The broker no longer hosts this replica: stop, and delete the log when {@code deleteData}. */
  public record Retire(boolean deleteData) implements Command {}

  static final String TICK_KEY = "tick";

  private ShardReplica() {}

  public static Behavior<Command> create(ShardAssignment assignment, int brokerId, Path dir, LogSettings logSettings,
      FlushScheduler flusher, ReplicationTransport transport, ReplicationSettings settings, ReplicaRegistry registry) {
    ShardId id = assignment.id();
    return Behaviors.setup(actor -> {
      ShardLog log;
      try {
        log = ShardLog.open(dir, logSettings, flusher);
      } catch (Exception e) {
        actor.getLog().error("replica {} on broker {} failed: its log in {} cannot be opened: {}", id, brokerId, dir,
            e.getMessage());
        return failed(id, brokerId, e.getMessage());
      }
      ReplicaContext ctx = new ReplicaContext(id, brokerId, log, transport, settings, registry, actor,
          ReplicaClock.SYSTEM);
      actor.getLog().info("replica {} on broker {} opened: log end {}, last epoch {}", id, brokerId,
          log.logEndOffset(), log.lastEpoch());
      return Behaviors.withTimers(timers -> {
        timers.startTimerWithFixedDelay(TICK_KEY, Tick.INSTANCE, tickInterval(settings));
        return roleFor(ctx, assignment, true);
      });
    });
  }

  /** The behaviour for an assignment. {@code fresh}: the actor has just opened its log (a start or restart). */
  static Behavior<Command> roleFor(ReplicaContext ctx, ShardAssignment a, boolean fresh) {
    if (a.leader() == ctx.brokerId) {
      // A replica that starts with its log already holding the assigned epoch may have lost unflushed records that
      // its followers hold under that same epoch: leading again at it could fork the log without an epoch showing
      // it. Only a new epoch is safe, so it waits for one.
      if (fresh && ctx.log.lastEpoch() >= a.leaderEpoch() && ctx.log.logEndOffset() > 0) {
        ctx.actor.getLog().warn("replica {} will not lead at epoch {}: its log already holds that epoch from before "
            + "a restart; waiting for a newer epoch", ctx.id, a.leaderEpoch());
        ctx.fenceEpoch = Math.max(ctx.fenceEpoch, a.leaderEpoch() + 1);
        ctx.refusal = NotServingReason.EPOCH_HELD_BEFORE_RESTART;
        return ShardFollower.create(ctx, a);
      }
      if (a.leaderEpoch() < ctx.fenceEpoch) {
        ctx.actor.getLog().warn("replica {} will not lead at epoch {}: fenced at epoch {}", ctx.id, a.leaderEpoch(),
            ctx.fenceEpoch);
        return ShardFollower.create(ctx, a);
      }
      return ShardLeader.create(ctx, a);
    }
    return ShardFollower.create(ctx, a);
  }

  private static Duration tickInterval(ReplicationSettings settings) {
    Duration half = settings.fetchMaxWait().dividedBy(2);
    return half.compareTo(Duration.ofMillis(50)) < 0 ? half : Duration.ofMillis(50);
  }

  /** Closes (or deletes) the log when the actor stops, whatever the behaviour. */
  static void closeLog(ReplicaContext ctx, boolean delete) {
    try {
      if (delete) {
        ctx.log.deleteAll();
        ctx.actor.getLog().info("replica {} retired from broker {}: log deleted", ctx.id, ctx.brokerId);
      } else {
        ctx.log.close();
      }
    } catch (Exception e) {
      ctx.actor.getLog().warn("replica {}: closing its log failed: {}", ctx.id, e.getMessage());
    }
  }

  static Behavior<Command> retire(ReplicaContext ctx, Retire retire) {
    ctx.reads.releaseAll(ctx.commitOffset);
    closeLog(ctx, retire.deleteData());
    return Behaviors.stopped();
  }

  static void onPostStop(ReplicaContext ctx, PostStop signal) {
    ctx.metrics.shardReleased(ctx.id);
    // Retire closed the log already; a system shutdown arrives here with it open.
    try {
      ctx.log.close();
    } catch (Exception ignored) {
      // closed twice or failed: nothing more to release
    }
  }

  /** The answer a non-leader gives a follower's fetch. */
  static void refuseFetch(ReplicaContext ctx, FollowerFetch f, long epoch, FetchError error) {
    ctx.send(f.fromBroker(), ReplicationFrame.newBuilder().setFetchResult(ReplicaFetchResult.newBuilder()
        .setShard(f.fetch().getShard()).setLeaderEpoch(epoch).setFetchId(f.fetch().getFetchId()).setError(error)
        .setFetchOffset(f.fetch().getFetchOffset())).build());
  }

  /**
   * NOT_LEADER naming {@code leader}; its epoch and the table version come from this broker's table, the epoch
   * only when the table names the same leader (otherwise unknown, and the client refreshes instead of trusting it).
   */
  public static Response notLeader(ShardId id, int leader, ReplicaRegistry registry) {
    AssignmentTable table = registry.table();
    String address = leader < 0 ? "" : table.broker(leader).map(e -> e.clientAddress()).orElse("");
    long epoch = table.shard(id).filter(a -> a.leader() == leader).map(ShardAssignment::leaderEpoch)
        .orElse(Errors.UNKNOWN_EPOCH);
    return Errors.response(0, Errors.notLeader(id.stream(), id.shard(), leader, address, epoch, table.version()));
  }

  private static Behavior<Command> failed(ShardId id, int brokerId, String why) {
    return Behaviors.receive(Command.class)
        .onMessage(Describe.class, d -> {
          d.replyTo().tell(new ReplicaStatus(id, brokerId, true, ReplicaRole.FAILED, -1, 0, 0, true));
          return Behaviors.same();
        })
        .onMessage(Fence.class, d -> {
          d.replyTo().tell(new ReplicaStatus(id, brokerId, true, ReplicaRole.FAILED, -1, 0, 0, true));
          return Behaviors.same();
        })
        .onMessage(ClientProduce.class, p -> {
          p.reply().complete(Errors.response(0, Errors.notAppended(ErrorCode.NOT_LEADER,
              "the replica of " + id + " on broker " + brokerId + " has failed (" + why + ")")));
          return Behaviors.same();
        })
        .onMessage(ClientFetch.class, f -> {
          f.reply().complete(Errors.response(0, Errors.of(ErrorCode.NOT_LEADER,
              "the replica of " + id + " on broker " + brokerId + " has failed (" + why + ")")));
          return Behaviors.same();
        })
        .onMessage(Retire.class, r -> Behaviors.stopped())
        .build();
  }
}
