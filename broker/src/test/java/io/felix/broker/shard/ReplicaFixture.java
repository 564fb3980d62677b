package io.felix.broker.shard;

import com.google.protobuf.ByteString;
import com.typesafe.config.ConfigFactory;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.ShardLog;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordList;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.ReplicaFetch;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;

/**
 * One replica actor under test: a real {@link ShardLog} in a temporary directory, a {@link ManualClock},
 * {@link RecordingSessions} for its fetch sessions and {@link TestTimers} that never fire (tests send
 * {@link ShardReplica.Tick} themselves), so everything the replica does follows from the messages a test sends.
 */
final class ReplicaFixture implements AutoCloseable {
  static final ShardId SHARD = new ShardId("orders", 0);
  static final Duration ISR_MAX_LAG_TIME = Duration.ofSeconds(10);
  static final long ISR_MAX_LAG_RECORDS = 100;
  static final ReplicationSettings SETTINGS = new ReplicationSettings(1 << 20, Duration.ofMillis(500),
      Duration.ofSeconds(2), ISR_MAX_LAG_RECORDS, ISR_MAX_LAG_TIME, Duration.ofSeconds(30), Duration.ofMillis(100),
      Duration.ofSeconds(1), 1000, (1 << 20) + 4096, Duration.ofDays(1), Duration.ofMillis(300),
      Duration.ofSeconds(1), 1 << 20);

  /** How long a test waits for a replica's asynchronous steps (a loaded build machine can be slow). */
  static final Duration PATIENCE = Duration.ofSeconds(10);

  final ManualClock clock = new ManualClock();
  final RecordingSessions sessions = new RecordingSessions();
  final TestTimers timers = new TestTimers();
  final ShardLog log;
  private final ActorTestKit kit;
  private final int brokerId;
  private final FlushScheduler flusher;
  private final List<ShardLog> otherLogs = new ArrayList<>();
  private ActorRef<ShardReplica.Command> replica;
  /** The broker's registry the replica sees (a test may give it a table, e.g. one where the shard is a cache's). */
  final ReplicaRegistry registry;
  /** The replica state the next started actor opens with (a test may set one that is recovering or has promised). */
  ReplicaState initialState = new ReplicaState(ShardAssignment.legacyIncarnation(SHARD.stream()), -1, false);

  /** A test kit whose probes and awaitAssert wait {@link #PATIENCE}. */
  static ActorTestKit testKit(String name) {
    return ActorTestKit.create(name, ConfigFactory.parseString(
        "pekko.actor.testkit.typed.single-expect-default = " + PATIENCE.toSeconds() + "s"));
  }

  ReplicaFixture(ActorTestKit kit, Path dir, int brokerId) throws IOException {
    this.kit = kit;
    this.brokerId = brokerId;
    this.registry = new ReplicaRegistry(brokerId);
    registry.fetchFrom(sessions);
    this.flusher = FlushScheduler.start(LogSettings.defaults(), "test-flusher-" + brokerId);
    this.log = ShardLog.open(dir.resolve("replica-" + brokerId), LogSettings.defaults(), flusher);
  }

  /** Another log (e.g. the leader's, for a follower under test), closed with the fixture. */
  ShardLog openOtherLog(Path dir) throws IOException {
    ShardLog other = ShardLog.open(dir, LogSettings.defaults(), flusher);
    otherLogs.add(other);
    return other;
  }

  ActorRef<ShardReplica.Command> startLeader(ShardAssignment a) {
    return start(ctx -> ShardLeader.create(ctx, a));
  }

  ActorRef<ShardReplica.Command> startFollower(ShardAssignment a) {
    return start(ctx -> ShardFollower.create(ctx, a));
  }

  private ActorRef<ShardReplica.Command> start(Function<ReplicaContext, Behavior<ShardReplica.Command>> role) {
    replica = kit.spawn(withStash(wiring -> role.apply(wiring.contextFor(log, initialState)), log.directory()));
    return replica;
  }

  /**
   * A replica started as {@link ReplicaDirectory} starts one: its log in {@code logDir} opens off the actor's thread
   * ({@link OpeningReplica}), and {@code directory} is told when it did.
   */
  ActorRef<ShardReplica.Command> startOpening(ShardAssignment a, Path logDir,
      ActorRef<ReplicaDirectory.Command> directory) {
    replica = kit.spawn(withStash(wiring -> OpeningReplica.create(wiring, a, directory), logDir));
    return replica;
  }

  /** A replica whose log in {@code logDir} could not be opened; it tries to open that directory again. */
  ActorRef<ShardReplica.Command> startFailed(ShardAssignment a, Path logDir, String cause) {
    replica = kit.spawn(withStash(wiring -> FailedReplica.afterOpenFailed(wiring, a, cause), logDir));
    describe(); // set up: its first attempt is due one reopen interval from the clock's time now, not later
    return replica;
  }

  /** A replica actor wired as {@link ShardReplica#create} wires one, over the log in {@code logDir}. */
  private Behavior<ShardReplica.Command> withStash(Function<ReplicaWiring, Behavior<ShardReplica.Command>> behavior,
      Path logDir) {
    return Behaviors.setup(actor -> Behaviors.withStash(Integer.MAX_VALUE, stash -> behavior.apply(
        new ReplicaWiring(SHARD, brokerId, new LogOpener(logDir, LogSettings.defaults(), flusher), SETTINGS, registry,
            actor, clock.replicaClock(), timers, stash))));
  }

  /**
   * What the replica last published for readers of roles only ({@link ReplicaRegistry#published}), read as the
   * directory reads it: the replica registered under its shard.
   */
  Optional<ReplicaStatus> published() {
    registry.put(SHARD, replica);
    return registry.published(SHARD);
  }

  /** The replica's status; also a barrier: every message sent before it has been handled. */
  ReplicaStatus describe() {
    TestProbe<ReplicaStatus> probe = kit.createTestProbe();
    replica.tell(new ShardReplica.Describe(probe.getRef()));
    return probe.receiveMessage();
  }

  void tell(ShardReplica.Command command) {
    replica.tell(command);
  }

  /** Produces one batch of {@code records} records with {@code acks}; the future is the answer. */
  CompletableFuture<Response> produce(Acks acks, int records) {
    long timestamp = clock.currentTimeMillis();
    RecordList.Builder list = RecordList.newBuilder();
    for (int i = 0; i < records; i++) {
      list.addRecords(Record.newBuilder().setValue(ByteString.copyFromUtf8("value-" + i)).setTimestampMs(timestamp));
    }
    ProduceRequest request = ProduceRequest.newBuilder().setStream(SHARD.stream()).setShard(SHARD.shard())
        .setRecords(list.build().toByteString()).setAcks(acks).build();
    CompletableFuture<Response> reply = new CompletableFuture<>();
    replica.tell(new ShardReplica.ClientProduce(request, new RecordListSummary(records, timestamp, timestamp), reply));
    return reply;
  }

  /** A follower's position as {@link ShardFollower} builds it (fetch id 1). */
  static ReplicaFetch.Builder fetch(int follower, long leaderEpoch, long fetchOffset, long lastFetchedEpoch,
      long storedOffset) {
    return ReplicaFetch.newBuilder().setShard(ShardRefs.toRef(SHARD)).setLeaderEpoch(leaderEpoch)
        .setFollowerId(follower).setFetchOffset(fetchOffset).setLastFetchedEpoch(lastFetchedEpoch)
        .setDurableOffset(storedOffset).setMaxBytes(1 << 20).setFetchId(1);
  }

  /** The position arrives in a request of its broker's session, sent now. */
  void followerFetch(ReplicaFetch.Builder fetch) {
    RecordingSessions.Session session = sessions.session(fetch.getFollowerId());
    session.lastRequestNanos = clock.nanoTime();
    replica.tell(new ShardReplica.FollowerFetch(fetch.getFollowerId(), fetch.build(), session.sessionId, session));
  }

  /** Appends {@code batches} batches of 3 records at {@code epoch} to a log the test still owns. */
  static void append(ShardLog log, long epoch, int batches) {
    for (int i = 0; i < batches; i++) {
      log.appendAsLeader(epoch, 3, 1000 + i, 1000 + i, ByteBuffer.wrap(new byte[] {(byte) epoch, (byte) i}));
    }
  }

  /** The batches of {@code log} from {@code offset} on, as a leader ships them. */
  static ByteString batchesFrom(ShardLog log, long offset) {
    return ByteString.copyFrom(log.read(offset, 1 << 20).batches());
  }

  static Response await(CompletableFuture<Response> reply) throws Exception {
    return reply.get(PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() throws IOException {
    if (replica != null) {
      kit.stop(replica); // its PostStop closes the log
    }
    log.close();
    for (ShardLog other : otherLogs) {
      other.close();
    }
    flusher.close();
  }
}
