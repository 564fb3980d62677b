package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.protocol.Errors;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogDigest;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.ShardLog;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One replica of one shard on this broker: the single owner of its {@link ShardLog}. Its behaviour is its role:
 * <ul>
 *   <li>{@link OpeningReplica}: first, while its log opens off the actor's thread; messages wait in its stash;
 *   <li>{@link ShardLeader}: assigns offsets, appends, serves followers' fetches, advances the commit offset,
 *       answers producers (also when fenced: then it takes no appends but keeps serving its log);
 *   <li>{@link ShardFollower}: pulls from the leader (also a learner, or idle without a leader or when fenced);
 *   <li>{@link FailedReplica}: the log could not be opened, or a write or fsync failed ({@link LogFailed}); it
 *       serves nothing, says so, and reopens its log every {@code felix.log.reopen-interval};
 *   <li>{@link StoringReplica}: between two steps of any role, while a change of its {@code replica.state} (a
 *       promise, the end of its recovery) is stored off the actor's thread; messages wait in its stash.
 * </ul>
 * Transitions come from {@link Assign} (a newer assignment from {@link ReplicaDirectory}) and from epochs: any
 * message carrying a newer epoch than a leader's makes it stop taking appends at once.
 *
 * <p>Replication runs through this broker's fetch sessions (see {@link LeaderFetchers} and {@link SessionLink}): an
 * idle replica exchanges no message. Its timers run only while it has work ({@link ReplicaTimers}).
 */
public final class ShardReplica {

  public sealed interface Command permits Assign, Fence, Describe, Digest, ClientProduce, ClientFetch, FollowerFetch,
      FollowerSessionEnded, FetchResultArrived, Stored, Tick, Retire, LogFailed, CacheRead,
      OpeningReplica.LogOpened, StoringReplica.StateStored {}

  /** The shard's current assignment (role, leader, epoch, replica set) from the newest table. */
  public record Assign(ShardAssignment assignment) implements Command {}

  /** FenceShard: adopt {@code newEpoch} as the fence, then reply with the status. */
  public record Fence(long newEpoch, ActorRef<ReplicaStatus> replyTo) implements Command {}

  public record Describe(ActorRef<ReplicaStatus> replyTo) implements Command {}

  /** DigestReplica: the digest of the log's batches below {@code below}, whatever the role ({@link #digest}). */
  public record Digest(long below, ActorRef<ReplicaDigest> replyTo) implements Command {}

  /**
   * A cache read (Get, MultiGet) of {@code keys} of this shard, answered by its leader with a MultiGetResponse from
   * committed entries only (see {@link io.felix.broker.cache.CacheIndex}); with {@code allowFollower} a follower in
   * contact with its leader answers too, from the entries committed as far as it knows. The keys are read in order
   * while the values read stay below {@code maxBytes} (0: no bound), at least the first; the rest are answered
   * not_read.
   */
  public record CacheRead(java.util.List<com.google.protobuf.ByteString> keys, boolean allowFollower, int maxBytes,
      CompletableFuture<Response> reply) implements Command {}

  /** A validated produce from a client (or forwarded by another broker in plain mode). */
  public record ClientProduce(ProduceRequest request, RecordListSummary summary, CompletableFuture<Response> reply)
      implements Command {}

  /** A consumer fetch; {@code maxBytes} and {@code waitMs} are already capped by the listener. */
  public record ClientFetch(FetchRequest request, int maxBytes, long waitMs, CompletableFuture<Response> reply)
      implements Command {}

  /**
   * A follower's position (and ack) that arrived in fetch session {@code sessionId} of broker {@code fromBroker};
   * answers go to {@code session}.
   */
  public record FollowerFetch(int fromBroker, ReplicaFetch fetch, long sessionId, SessionLink session)
      implements Command {}

  /** Broker {@code fromBroker}'s fetch session {@code sessionId} ended: it stopped asking (see FollowerSession). */
  public record FollowerSessionEnded(int fromBroker, long sessionId) implements Command {}

  /** The leader's answer for this replica's shard, from the fetch session with its broker. */
  public record FetchResultArrived(int fromBroker, ReplicaFetchResult result) implements Command {}

  /** The log reports everything below {@code offset} stored (fsynced under flush = always). */
  public record Stored(long offset) implements Command {}

  /** The replica's timers (see {@link ReplicaTimers}): an idle replica has neither. */
  enum Tick implements Command {
    /** While work is pending: deadlines of parked produces and consumer fetches, in-sync checks, reports. */
    WORK,
    /** When due: retention, cache compaction and checkpoints, idle producers. */
    HOUSEKEEPING
  }

  /** The broker no longer hosts this replica: stop, and delete the log when {@code deleteData}. */
  public record Retire(boolean deleteData) implements Command {}

  /**
   * A write, fsync or truncation of {@code log} failed (reported by the flush path, or found by the actor itself):
   * the replica becomes {@link FailedReplica}. Ignored when {@code log} is no longer the replica's log.
   */
  public record LogFailed(ShardLog log, String cause) implements Command {}

  private ShardReplica() {}

  /**
   * @param directory told {@link ReplicaDirectory.ReplicaOpened} once the log is open (or could not be), so the
   *     directory reports a round of opens in one line
   */
  public static Behavior<Command> create(ShardAssignment assignment, int brokerId, Path dir, LogSettings logSettings,
      FlushScheduler flusher, ReplicationSettings settings, ReplicaRegistry registry,
      ActorRef<ReplicaDirectory.Command> directory) {
    ShardId id = assignment.id();
    // The stash holds the messages that arrive while the log opens or the state is stored (OpeningReplica,
    // StoringReplica): unbounded like the mailbox they would otherwise wait in, and each wait lasts one file operation.
    return Behaviors.setup(actor -> Behaviors.withTimers(timers -> Behaviors.withStash(Integer.MAX_VALUE, stash -> {
      ReplicaWiring wiring = new ReplicaWiring(id, brokerId, new LogOpener(dir, logSettings, flusher), settings,
          registry, actor, ReplicaClock.SYSTEM, ReplicaTimers.of(timers, workInterval(settings)), stash);
      return OpeningReplica.create(wiring, assignment, directory);
    })));
  }

  /** The behaviour for an assignment: leader only as {@link LeadRule} allows, else a follower. */
  static Behavior<Command> roleFor(ReplicaContext ctx, ShardAssignment a) {
    if (a.leader() != ctx.brokerId) {
      return ShardFollower.create(ctx, a);
    }
    LeadRule.Verdict verdict = LeadRule.decide(a.leaderEpoch(), ctx.promisedAtOpen, ctx.promisedEpoch(),
        ctx.recovering(), ctx.log.logEndOffset() == 0);
    if (verdict != LeadRule.Verdict.LEAD && verdict != LeadRule.Verdict.LEAD_PROVISIONALLY) {
      ctx.refusal = verdict.notServingReason();
      // DEBUG: after a restart every replica that led refuses its old epoch (thousands at once). The replica reports
      // its refusal and reason to the singleton, which logs per check how many assigned leaders do not lead.
      ctx.actor.getLog().debug("replica {} on broker {} will not lead at epoch {}: {}; it waits for a newer epoch",
          ctx.id, ctx.brokerId, a.leaderEpoch(),
          LeadRule.reason(verdict, a.leaderEpoch(), ctx.promisedAtOpen, ctx.promisedEpoch()));
      return ShardFollower.create(ctx, a);
    }
    ReplicaState leading = ctx.state().promise(a.leaderEpoch());
    if (leading.recovering() && a.quorumSize() == 1) {
      leading = leading.recovered(); // a replica set of one: no other copy could show what it lacks
    }
    return ctx.store(leading, null, () -> lead(ctx, a));
  }

  /** Leads at {@code a}'s epoch, promised and stored. */
  private static Behavior<Command> lead(ReplicaContext ctx, ShardAssignment a) {
    try {
      return ShardLeader.create(ctx, a);
    } catch (RuntimeException e) {
      if (!ctx.log.failed()) {
        throw e;
      }
      // Its epoch marker could not be written (a full disk): failed, not crashed, so the log is closed.
      return FailedReplica.afterRunFailed(ctx, a, "writing its epoch marker failed: " + e.getMessage());
    }
  }

  /** How often the work tick runs while work is pending. */
  private static Duration workInterval(ReplicationSettings settings) {
    Duration half = settings.fetchMaxWait().dividedBy(2);
    return half.compareTo(Duration.ofMillis(50)) < 0 ? half : Duration.ofMillis(50);
  }

  /** Closes (or deletes) the log when the actor stops, whatever the behaviour. */
  static void closeLog(ReplicaContext ctx, boolean delete) {
    try {
      if (delete) {
        ctx.log.deleteAll();
        ctx.actor.getLog().debug("replica {} retired from broker {}: log deleted", ctx.id, ctx.brokerId);
      } else {
        ctx.log.close();
      }
    } catch (Exception e) {
      ctx.actor.getLog().warn("replica {}: closing its log failed: {}", ctx.id, e.getMessage());
    }
  }

  static Behavior<Command> retire(ReplicaContext ctx, Retire retire) {
    ctx.unfollow();
    ctx.reads.releaseAll(ctx.commitOffset);
    closeLog(ctx, retire.deleteData());
    return Behaviors.stopped();
  }

  static void onPostStop(ReplicaContext ctx, PostStop signal) {
    ctx.unfollow();
    ctx.metrics.shardReleased(ctx.id);
    // Retire closed the log already; a system shutdown arrives here with it open.
    try {
      ctx.log.close();
    } catch (Exception ignored) {
      // closed twice or failed: nothing more to release
    }
  }

  /**
   * Answers a {@link Digest} from a blocking-IO thread: it reads the whole log below the offset (an on-demand
   * diagnostic, but a log may be gigabytes), which the actor's other messages must not wait for; reads are safe
   * from any thread (see {@link ShardLog}). A stream's replicas digest whole batches, a cache's only the header
   * fields its compaction keeps ({@link LogDigest.Scope}).
   */
  static void digest(ReplicaContext ctx, Digest d) {
    LogDigest.Scope scope = ctx.registry.table().streamConfig(ctx.id.stream()).forCache()
        ? LogDigest.Scope.BATCH_HEADERS : LogDigest.Scope.WHOLE_BATCHES;
    ShardLog log = ctx.log;
    ShardId id = ctx.id;
    int brokerId = ctx.brokerId;
    Executor blocking = ctx.actor.getSystem().dispatchers().lookup(DispatcherSelector.blocking());
    CompletableFuture.supplyAsync(() -> ReplicaDigest.of(id, brokerId, LogDigest.of(log, d.below(), scope)), blocking)
        .exceptionally(failure -> ReplicaDigest.without(id, brokerId, ReplicaDigest.Outcome.UNREADABLE,
            "its log could not be digested below " + d.below() + ": "
                + (failure.getCause() != null ? failure.getCause() : failure).getMessage()))
        .thenAccept(d.replyTo()::tell);
  }

  /** The answer of a replica that does not serve a follower's entry ({@code error}, under {@code epoch}). */
  static void refuseFetch(FollowerFetch f, long epoch, FetchError error) {
    f.session().deliver(f.sessionId(), ReplicaFetchResult.newBuilder()
        .setShard(f.fetch().getShard()).setLeaderEpoch(epoch).setFetchId(f.fetch().getFetchId()).setError(error)
        .setFetchOffset(f.fetch().getFetchOffset()).build());
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

  /**
   * Answers a produce that reaches a replica busy with a file operation (opening its log, storing its state) at once,
   * NOT_LEADER with no leader named, instead of keeping it in the stash. The wait is short for one replica, but a
   * broker opening a 10,000-shard stream runs those operations by the thousand on its blocking-IO threads: each
   * parked produce held one of the client's requests in flight on its connection, and the client's other shards
   * queued behind until its request timeout (measured 2026-12-06: every shard of a new 10,000-shard stream took its
   * first write after about a minute, nearly all of them sent twice). NOT_LEADER is retriable and nothing was
   * appended: the client backs off and sends it again.
   */
  static void refuseProduceWhileBusy(ClientProduce p, ShardId id, ReplicaRegistry registry) {
    p.reply().complete(notLeader(id, -1, registry));
  }

  /** What failed in work done off the actor's thread: the I/O exception inside the future's wrappers. */
  static Throwable causeOf(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause()
        : failure;
    return cause instanceof UncheckedIOException && cause.getCause() != null ? cause.getCause() : cause;
  }

  static void reportFailure(ReplicaContext ctx, Throwable failure) {
    if (ctx.log.failed()) {
      ctx.actor.getSelf().tell(new LogFailed(ctx.log, "its log failed: " + failure.getMessage()));
    }
  }
}
