package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.protocol.Errors;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
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
import java.io.IOException;
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
      ReplicaMetadata metadata = new ReplicaMetadata(dir);
      ReplicaState state;
      try {
        log = ShardLog.open(dir, logSettings, flusher);
      } catch (Exception e) {
        actor.getLog().error("replica {} on broker {} failed: its log in {} cannot be opened: {}", id, brokerId, dir,
            e.getMessage());
        return failed(id, brokerId, e.getMessage());
      }
      try {
        state = openState(metadata, log, assignment);
      } catch (IOException e) {
        try {
          log.close();
        } catch (IOException ignored) {
          // the replica fails either way; the reason reported is the state's
        }
        actor.getLog().error("replica {} on broker {} failed: {}", id, brokerId, e.getMessage());
        return failed(id, brokerId, e.getMessage());
      }
      ReplicaContext ctx = new ReplicaContext(id, brokerId, log, transport, settings, registry, actor,
          ReplicaClock.SYSTEM, metadata, state);
      actor.getLog().info("replica {} on broker {} opened: log end {}, last epoch {}, promised epoch {}{}", id,
          brokerId, log.logEndOffset(), log.lastEpoch(), state.promisedEpoch(),
          state.recovering() ? ", new or wiped: it vouches for nothing until it has caught up with a leader" : "");
      return Behaviors.withTimers(timers -> {
        timers.startTimerWithFixedDelay(TICK_KEY, Tick.INSTANCE, tickInterval(settings));
        return roleFor(ctx, assignment);
      });
    });
  }

  /**
   * The replica's state as it opens, stored before anything acts on it. Without a {@code replica.state}: a log
   * written before the file existed promises its last epoch (what it may have led or followed at); an empty one
   * is new or lost its directory (wiped), which nothing here can tell apart, so it is recovering: it vouches for
   * nothing until it has caught up with a leader (a new shard's followers do so at once, the commit offset being
   * 0), and leads only provisionally (see {@link LeadRule}).
   *
   * @throws IOException when the state cannot be read or written, or belongs to another incarnation of the stream
   */
  static ReplicaState openState(ReplicaMetadata metadata, ShardLog log, ShardAssignment a) throws IOException {
    var stored = metadata.read();
    if (stored.isPresent()) {
      if (!stored.get().incarnation().equals(a.incarnation())) {
        throw new IOException("its directory " + log.directory() + " holds incarnation "
            + stored.get().incarnation() + " of the stream, the table's is " + a.incarnation());
      }
      return stored.get();
    }
    ReplicaState state = new ReplicaState(a.incarnation(), log.lastEpoch(), log.logEndOffset() == 0);
    metadata.write(state);
    return state;
  }

  /** The behaviour for an assignment: leader only as {@link LeadRule} allows, else a follower. */
  static Behavior<Command> roleFor(ReplicaContext ctx, ShardAssignment a) {
    if (a.leader() != ctx.brokerId) {
      return ShardFollower.create(ctx, a);
    }
    LeadRule.Verdict verdict = LeadRule.decide(a.leaderEpoch(), ctx.promisedAtOpen, ctx.promisedEpoch(),
        ctx.recovering(), ctx.log.logEndOffset() == 0);
    if (verdict != LeadRule.Verdict.LEAD && verdict != LeadRule.Verdict.LEAD_PROVISIONALLY) {
      ctx.actor.getLog().warn("replica {} on broker {} will not lead at epoch {}: {}; it waits for a newer epoch",
          ctx.id, ctx.brokerId, a.leaderEpoch(),
          LeadRule.reason(verdict, a.leaderEpoch(), ctx.promisedAtOpen, ctx.promisedEpoch()));
      return ShardFollower.create(ctx, a);
    }
    ctx.promise(a.leaderEpoch());
    return ShardLeader.create(ctx, a);
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

  public static Response notLeader(ShardId id, int leader, ReplicaRegistry registry) {
    String address = leader < 0 ? "" : registry.table().broker(leader).map(e -> e.clientAddress()).orElse("");
    return Errors.response(0, Errors.notLeader(id.stream(), id.shard(), leader, address));
  }

  private static ReplicaStatus failedStatus(ShardId id, int brokerId) {
    return new ReplicaStatus(id, brokerId, true, ReplicaRole.FAILED, -1, 0, 0, true, false, -1);
  }

  private static Behavior<Command> failed(ShardId id, int brokerId, String why) {
    return Behaviors.receive(Command.class)
        .onMessage(Describe.class, d -> {
          d.replyTo().tell(failedStatus(id, brokerId));
          return Behaviors.same();
        })
        .onMessage(Fence.class, d -> {
          d.replyTo().tell(failedStatus(id, brokerId));
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
