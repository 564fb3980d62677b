package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.DataDirectoryLock;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogQuarantine;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.broker.wire.ControlMessage;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per broker, registered with the Receptionist under {@link #SERVICE_KEY}: the control plane's handle on this
 * broker's data plane. It applies assignment tables (starting, re-roling and retiring replica actors), and routes
 * FenceShard / DescribeReplica / DigestReplica to the replica. Replica logs live under
 * {@code data-dir/<stream>-<shard>}.
 */
public final class ReplicaDirectory extends AbstractBehavior<ReplicaDirectory.Command> {

  public static final ServiceKey<Command> SERVICE_KEY = ServiceKey.create(Command.class, "felix-replica-directory");

  public sealed interface Command
      permits ApplyAssignments, FenceShard, DescribeReplica, FenceShards, DescribeReplicas, DigestReplica,
      ReplicaStopped, Respawn, StopReplicaUnretired, PurgeQuarantine, ReplicaOpened {}

  /** Ignored unless {@code table.version} is newer than the table held. */
  public record ApplyAssignments(AssignmentTable table) implements Command, ControlMessage {}

  /**
   * The replica adopts {@code newEpoch} as its fence (a fenced leader takes no more appends but keeps serving its
   * log, and the replica will not lead at an epoch below the fence) and replies with its status: its last epoch
   * and log end are what the control plane's failover round compares.
   */
  public record FenceShard(ShardId id, long newEpoch, ActorRef<ReplicaStatus> replyTo) implements Command, ControlMessage {}

  public record DescribeReplica(ShardId id, ActorRef<ReplicaStatus> replyTo) implements Command, ControlMessage {}

  /**
   * {@link FenceShard} for many shards at once (a failover round's fences to this broker): each replica adopts its
   * shard's epoch, and one {@link ReplicaStatuses} answers them all once every replica answered or
   * {@code timeoutMillis} passed.
   */
  public record FenceShards(long requestId, Map<ShardId, Long> epochs, long timeoutMillis,
      ActorRef<ReplicaStatuses> replyTo) implements Command, ControlMessage {
    public FenceShards {
      epochs = Map.copyOf(epochs);
    }
  }

  /**
   * {@link DescribeReplica} for many shards at once (the leader check, the admin API). A replica still opening its
   * log answers {@link ReplicaRole#STARTING} at once, without waiting for it.
   */
  public record DescribeReplicas(long requestId, List<ShardId> shards, long timeoutMillis,
      ActorRef<ReplicaStatuses> replyTo) implements Command, ControlMessage {
    public DescribeReplicas {
      shards = List.copyOf(shards);
    }
  }

  /**
   * The digest of the replica's log below {@code below} (GET /v1/streams/{name}/replica-digests compares them across
   * the replica set below the leader's commit offset), whatever the replica's role.
   */
  public record DigestReplica(ShardId id, long below, ActorRef<ReplicaDigest> replyTo)
      implements Command, ControlMessage {}

  private record ReplicaStopped(ShardId id, ActorRef<ShardReplica.Command> replica) implements Command {}

  /** A replica that failed is started again if the held table still has this broker host it. */
  private record Respawn(ShardId id) implements Command {}

  /** Test hook, local only: stops a replica actor without retiring it, the way an exception in it does. */
  record StopReplicaUnretired(ShardId id) implements Command {}

  /** A replica actor this directory started has opened its log ({@code failed}: it could not, and is FAILED). */
  record ReplicaOpened(ShardId id, boolean failed) implements Command {}

  /** Deletes the quarantined logs past their retention; on a timer. */
  private enum PurgeQuarantine implements Command { INSTANCE }

  /** How often quarantined logs past their retention are looked for (the retention is hours, by default a day). */
  private static final Duration PURGE_INTERVAL = Duration.ofMinutes(10);

  private final int brokerId;
  private final Path dataDir;
  private final LogSettings logSettings;
  private final FlushScheduler flusher;
  private final ReplicationTransport transport;
  private final ReplicationSettings settings;
  private final ReplicaRegistry registry;
  private final LogQuarantine quarantine;
  private final Map<ShardId, ActorRef<ShardReplica.Command>> replicas = new HashMap<>();
  /**
   * Replicas told to retire that have not stopped yet: they are deleting their log, in the directory a new
   * replica of the same shard (a stream deleted and created again) would use, so that one starts only after.
   */
  private final Map<ShardId, ActorRef<ShardReplica.Command>> retiring = new HashMap<>();
  /** Retiring replicas whose stream left the table: their logs go to quarantine once they stopped. */
  private final Set<ShardId> quarantineWhenStopped = new HashSet<>();
  private long spawned;
  /** How long a replica that stopped on a failure stays down before it is started again. */
  private static final Duration RESPAWN_BACKOFF = Duration.ofSeconds(1);
  /** False until the first table is applied: that one decides which logs left on disk are stale. */
  private boolean appliedSinceStart;

  /**
   * Where the directory itself runs: a thread of its own, not the default dispatcher (see felix.own-thread-dispatcher
   * in reference.conf).
   */
  public static final DispatcherSelector DISPATCHER = DispatcherSelector.fromConfig("felix.own-thread-dispatcher");

  /** Where replica actors run: not the default dispatcher (see felix.replica-dispatcher in reference.conf). */
  private static final DispatcherSelector REPLICA_DISPATCHER =
      DispatcherSelector.fromConfig("felix.replica-dispatcher");
  /** The replicas started and not yet opened, counted for one INFO line per round of opens ({@link OpenRound}). */
  private final OpenRound openRound = new OpenRound();
  /** The broker's lock of the data directory, released once every replica (a child) has stopped. */
  private final DataDirectoryLock dataDirectoryLock;

  /** What {@link #directoryName} produces: a URL-encoded stream name, a dash, a shard number. */
  private static final Pattern REPLICA_DIRECTORY = Pattern.compile("[A-Za-z0-9._*%+-]+-[0-9]+");

  private ReplicaDirectory(ActorContext<Command> context, Path dataDir, LogSettings logSettings,
      FlushScheduler flusher, ReplicationTransport transport, ReplicationSettings settings, ReplicaRegistry registry,
      Duration quarantineRetention, DataDirectoryLock dataDirectoryLock) {
    super(context);
    this.dataDirectoryLock = dataDirectoryLock;
    this.brokerId = registry.brokerId();
    this.dataDir = dataDir;
    this.logSettings = logSettings;
    this.flusher = flusher;
    this.transport = transport;
    this.settings = settings;
    this.registry = registry;
    this.quarantine = new LogQuarantine(dataDir, quarantineRetention, System::currentTimeMillis);
  }

  /**
   * @param dataDirectoryLock the broker's lock of {@code dataDir}, held by the caller: released when this directory
   *     stops, after every replica (its children) has stopped and closed its log
   */
  public static Behavior<Command> create(Path dataDir, LogSettings logSettings, FlushScheduler flusher,
      ReplicationTransport transport, ReplicationSettings settings, ReplicaRegistry registry,
      Duration quarantineRetention, DataDirectoryLock dataDirectoryLock) {
    return Behaviors.setup(context -> {
      context.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, context.getSelf()));
      return Behaviors.withTimers(timers -> {
        timers.startTimerWithFixedDelay(PurgeQuarantine.INSTANCE, PURGE_INTERVAL);
        return new ReplicaDirectory(context, dataDir, logSettings, flusher, transport, settings, registry,
            quarantineRetention, dataDirectoryLock);
      });
    });
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(ApplyAssignments.class, this::onApply)
        .onMessage(FenceShard.class, this::onFence)
        .onMessage(DescribeReplica.class, this::onDescribe)
        .onMessage(FenceShards.class, this::onFenceShards)
        .onMessage(DescribeReplicas.class, this::onDescribeReplicas)
        .onMessage(DigestReplica.class, this::onDigest)
        .onMessage(ReplicaStopped.class, this::onReplicaStopped)
        .onMessage(Respawn.class, this::onRespawn)
        .onMessage(StopReplicaUnretired.class, this::onStopReplicaUnretired)
        .onMessageEquals(PurgeQuarantine.INSTANCE, this::onPurgeQuarantine)
        .onMessage(ReplicaOpened.class, this::onReplicaOpened)
        .onSignal(PostStop.class, this::onPostStop)
        .build();
  }

  private Behavior<Command> onReplicaOpened(ReplicaOpened opened) {
    openRound.opened(opened.id(), opened.failed())
        .ifPresent(done -> getContext().getLog().info("broker {} {}", brokerId, done));
    return this;
  }

  private Behavior<Command> onPostStop(PostStop signal) {
    try {
      dataDirectoryLock.close(); // the replicas, children of this actor, have stopped and closed their logs
    } catch (IOException e) {
      getContext().getLog().warn("broker {} could not release the lock of {}: {}", brokerId, dataDir, e.toString());
    }
    return this;
  }

  private Behavior<Command> onApply(ApplyAssignments apply) {
    AssignmentTable table = apply.table();
    long held = registry.table().version();
    if (table.version() <= held) {
      getContext().getLog().debug("broker {} ignores assignment table v{} (holds v{})", brokerId, table.version(), held);
      return this;
    }
    AssignmentTable previous = registry.table();
    registry.table(table);
    transport.updatePeers(table.brokers());
    int setAside = 0;
    if (!appliedSinceStart) {
      appliedSinceStart = true;
      setAside = quarantineLogsNotHostedIn(table);
      onPurgeQuarantine();
    }
    int started = 0;
    int waiting = 0;
    int retired = 0;
    int quarantinedOnRetire = 0;
    for (ShardAssignment a : table.shards().values()) {
      if (!a.hostedBy(brokerId)) {
        continue;
      }
      ActorRef<ShardReplica.Command> replica = replicas.get(a.id());
      if (replica == null && retiring.containsKey(a.id())) {
        waiting++;
        getContext().getLog().debug("broker {} starts replica {} once its retired replica has deleted its log",
            brokerId, a.id());
      } else if (replica == null) {
        setAside += spawn(a) ? 1 : 0;
        started++;
      } else if (!a.equals(previous.shards().get(a.id()))) {
        replica.tell(new ShardReplica.Assign(a)); // an unchanged assignment tells the replica nothing new
      }
    }
    for (Map.Entry<ShardId, ActorRef<ShardReplica.Command>> e : Map.copyOf(replicas).entrySet()) {
      ShardAssignment a = table.shards().get(e.getKey());
      if (a == null || !a.hostedBy(brokerId)) {
        // A shard moved elsewhere is held by its new replica set, so its log here is deleted. A stream the table no
        // longer lists was deleted, or the table is wrong (a journal that lost its tail): the log is set aside.
        boolean streamGone = !table.streams().containsKey(e.getKey().stream());
        getContext().getLog().debug("broker {} no longer hosts {} (table v{}): retiring its replica{}", brokerId,
            e.getKey(), table.version(), streamGone ? "; its stream is not in the table, so its log goes to "
                + "quarantine" : "");
        retired++;
        quarantinedOnRetire += streamGone ? 1 : 0;
        registry.remove(e.getKey());
        replicas.remove(e.getKey());
        retiring.put(e.getKey(), e.getValue());
        if (streamGone) {
          quarantineWhenStopped.add(e.getKey());
        }
        e.getValue().tell(new ShardReplica.Retire(!streamGone));
      }
    }
    getContext().getLog().info("broker {} applied assignment table v{}: hosting {} replicas; starting {} ({} to "
        + "open after a retired one), retiring {} ({} of streams not in the table, their logs to quarantine), {} "
        + "stale log(s) set aside in quarantine", brokerId, table.version(), replicas.size(), started, waiting, retired,
        quarantinedOnRetire, setAside);
    if (started > 0) {
      openRound.quarantined(setAside);
    }
    return this;
  }

  /** Starts a replica actor for {@code a}; true if an old log in its directory was set aside first. */
  private boolean spawn(ShardAssignment a) {
    boolean setAside = quarantineIfOtherIncarnation(a);
    ActorRef<ShardReplica.Command> replica = getContext().spawn(ShardReplica.create(a, brokerId,
        dataDir.resolve(directoryName(a.id())), logSettings, flusher, settings, registry,
        getContext().getSelf()), "replica-" + directoryName(a.id()) + "-" + (++spawned), REPLICA_DISPATCHER);
    getContext().watchWith(replica, new ReplicaStopped(a.id(), replica));
    replicas.put(a.id(), replica);
    registry.put(a.id(), replica);
    openRound.started(a.id());
    return setAside;
  }

  /**
   * Moves the replica logs on disk that {@code table} does not have this broker host into quarantine. A stream
   * deleted while the broker was down was never retired here, and a new stream of the same name starts again at
   * epoch 1: its replica must not open the old incarnation's log. The table is authoritative for what this broker
   * hosts, but the logs are only set aside (see {@link LogQuarantine}), never deleted on the first table after a
   * start. Only directories named like a replica log are touched (the data directory may hold other files, e.g. a
   * journal, and the quarantine itself).
   */
  private int quarantineLogsNotHostedIn(AssignmentTable table) {
    Set<String> hosted = new HashSet<>();
    for (ShardAssignment a : table.shards().values()) {
      if (a.hostedBy(brokerId)) {
        hosted.add(directoryName(a.id()));
      }
    }
    List<Path> stale;
    try (Stream<Path> entries = Files.list(dataDir)) {
      stale = entries.filter(Files::isDirectory)
          .filter(d -> REPLICA_DIRECTORY.matcher(d.getFileName().toString()).matches())
          .filter(d -> !hosted.contains(d.getFileName().toString()))
          .toList();
    } catch (IOException e) {
      getContext().getLog().warn("broker {} cannot list {} for stale replica logs: {}", brokerId, dataDir,
          e.toString());
      return 0;
    }
    int moved = 0;
    for (Path dir : stale) {
      moved += moveToQuarantine(dir, "not hosted here in assignment table v" + table.version()) ? 1 : 0;
    }
    return moved;
  }

  /**
   * A hosted shard's directory that holds another incarnation of the stream is set aside, not opened; true if it
   * was. A new replica's directory does not exist: one stat.
   */
  private boolean quarantineIfOtherIncarnation(ShardAssignment a) {
    Path dir = dataDir.resolve(directoryName(a.id()));
    Optional<ReplicaState> stored;
    try {
      stored = Files.isDirectory(dir) ? new ReplicaMetadata(dir).read() : Optional.empty();
    } catch (IOException e) {
      return false; // the replica fails on it and says why
    }
    return stored.isPresent() && !stored.get().incarnation().equals(a.incarnation())
        && moveToQuarantine(dir, "it holds incarnation " + stored.get().incarnation() + " of stream '"
            + a.id().stream() + "', the table's is " + a.incarnation());
  }

  /**
   * Sets a replica log aside (expected after a stream was deleted, or deleted and created again, while this broker
   * was down: one DEBUG line each, counted in the table's INFO line); a failure to do so is a WARN of its own.
   */
  private boolean moveToQuarantine(Path dir, String why) {
    try {
      Path moved = quarantine.quarantine(dir);
      getContext().getLog().debug("broker {} moved replica log {} to {}: {}", brokerId, dir, moved, why);
      return true;
    } catch (IOException e) {
      getContext().getLog().warn("broker {} could not move replica log {} to quarantine ({}): {}", brokerId, dir, why,
          e.toString());
      return false;
    }
  }

  private Behavior<Command> onPurgeQuarantine() {
    try {
      List<Path> expired = quarantine.purgeExpired();
      for (Path gone : expired) {
        getContext().getLog().debug("broker {} deleted quarantined replica log {}: past its retention", brokerId,
            gone);
      }
      if (!expired.isEmpty()) {
        getContext().getLog().info("broker {} deleted {} quarantined replica log(s) past their retention", brokerId,
            expired.size());
      }
    } catch (IOException e) {
      getContext().getLog().warn("broker {} could not purge its quarantined replica logs: {}", brokerId, e.toString());
    }
    return this;
  }

  private Behavior<Command> onFence(FenceShard fence) {
    ActorRef<ShardReplica.Command> replica = replicas.get(fence.id());
    if (replica == null) {
      fence.replyTo().tell(ReplicaStatus.notHosted(fence.id(), brokerId));
    } else {
      replica.tell(new ShardReplica.Fence(fence.newEpoch(), fence.replyTo()));
    }
    return this;
  }

  private Behavior<Command> onDescribe(DescribeReplica describe) {
    ActorRef<ShardReplica.Command> replica = replicas.get(describe.id());
    if (replica == null) {
      describe.replyTo().tell(ReplicaStatus.notHosted(describe.id(), brokerId));
    } else {
      replica.tell(new ShardReplica.Describe(describe.replyTo()));
    }
    return this;
  }

  private Behavior<Command> onFenceShards(FenceShards fence) {
    Map<ShardId, ActorRef<ShardReplica.Command>> asked = new HashMap<>();
    List<ReplicaStatus> known = new ArrayList<>();
    fence.epochs().forEach((id, epoch) -> {
      ActorRef<ShardReplica.Command> replica = replicas.get(id);
      if (replica == null) {
        known.add(ReplicaStatus.notHosted(id, brokerId));
      } else if (!openRound.fenceWaits(id, epoch)) {
        asked.put(id, replica); // even one still opening: the fence must be adopted, so it waits for the replica
      } // else one at this epoch already waits for the replica to open: this one would only wait behind it
    });
    collect(fence.requestId(), asked, (id, replyTo) -> new ShardReplica.Fence(fence.epochs().get(id), replyTo), known,
        fence.timeoutMillis(), fence.replyTo());
    return this;
  }

  private Behavior<Command> onDescribeReplicas(DescribeReplicas describe) {
    Map<ShardId, ActorRef<ShardReplica.Command>> asked = new HashMap<>();
    List<ReplicaStatus> known = new ArrayList<>();
    describe.shards().forEach(id -> {
      ActorRef<ShardReplica.Command> replica = replicas.get(id);
      if (replica == null) {
        known.add(ReplicaStatus.notHosted(id, brokerId));
      } else if (openRound.pending(id)) {
        known.add(ReplicaStatus.starting(id, brokerId));
      } else {
        asked.put(id, replica);
      }
    });
    collect(describe.requestId(), asked, (id, replyTo) -> new ShardReplica.Describe(replyTo), known,
        describe.timeoutMillis(), describe.replyTo());
    return this;
  }

  private void collect(long requestId, Map<ShardId, ActorRef<ShardReplica.Command>> asked,
      java.util.function.BiFunction<ShardId, ActorRef<ReplicaStatus>, ShardReplica.Command> question,
      List<ReplicaStatus> known, long timeoutMillis, ActorRef<ReplicaStatuses> replyTo) {
    getContext().spawnAnonymous(StatusCollector.create(requestId, brokerId, registry.table().version(), asked,
        question, known, Duration.ofMillis(Math.max(1, timeoutMillis)), replyTo));
  }

  private Behavior<Command> onDigest(DigestReplica digest) {
    ActorRef<ShardReplica.Command> replica = replicas.get(digest.id());
    if (replica == null) {
      digest.replyTo().tell(ReplicaDigest.without(digest.id(), brokerId, ReplicaDigest.Outcome.NOT_HOSTED,
          "broker " + brokerId + " hosts no replica of " + digest.id()));
    } else {
      replica.tell(new ShardReplica.Digest(digest.below(), digest.replyTo()));
    }
    return this;
  }

  private Behavior<Command> onReplicaStopped(ReplicaStopped stopped) {
    openRound.stopped(stopped.id()).ifPresent(done -> getContext().getLog().info("broker {} {}", brokerId, done));
    if (retiring.get(stopped.id()) == stopped.replica()) {
      retiring.remove(stopped.id());
      Path dir = dataDir.resolve(directoryName(stopped.id()));
      if (quarantineWhenStopped.remove(stopped.id()) && Files.isDirectory(dir)) {
        moveToQuarantine(dir, "stream '" + stopped.id().stream() + "' is not in the assignment table");
      }
      ShardAssignment again = hostedInHeldTable(stopped.id());
      if (again != null && !replicas.containsKey(stopped.id())) { // a newer table hosts the shard here again
        spawn(again);
      }
    } else if (replicas.get(stopped.id()) == stopped.replica()) {
      // Stopped without being retired: it failed. Tables are re-pushed with the same version, which is ignored, so
      // waiting for a table would leave the shard unserved here: start it again after a pause instead.
      replicas.remove(stopped.id());
      registry.remove(stopped.id());
      if (hostedInHeldTable(stopped.id()) != null) {
        getContext().getLog().warn("replica {} on broker {} stopped without being retired (it failed): starting it "
            + "again in {} ms", stopped.id(), brokerId, RESPAWN_BACKOFF.toMillis());
        getContext().scheduleOnce(RESPAWN_BACKOFF, getContext().getSelf(), new Respawn(stopped.id()));
      } else {
        getContext().getLog().warn("replica {} on broker {} stopped without being retired (it failed); the held "
            + "table v{} no longer has it hosted here", stopped.id(), brokerId, registry.table().version());
      }
    }
    return this;
  }

  private Behavior<Command> onRespawn(Respawn respawn) {
    // In the meantime a newer table may have retired the shard, or started it again itself.
    ShardAssignment a = hostedInHeldTable(respawn.id());
    if (replicas.containsKey(respawn.id()) || retiring.containsKey(respawn.id()) || a == null) {
      getContext().getLog().info("broker {} does not restart replica {}: {}", brokerId, respawn.id(),
          a == null ? "table v" + registry.table().version()
              + " no longer has it hosted here" : "a newer table started it already");
      return this;
    }
    getContext().getLog().info("broker {} restarts replica {} after its failure (table v{})", brokerId, respawn.id(),
        registry.table().version());
    spawn(a);
    return this;
  }

  private Behavior<Command> onStopReplicaUnretired(StopReplicaUnretired stop) {
    ActorRef<ShardReplica.Command> replica = replicas.get(stop.id());
    if (replica != null) {
      getContext().stop(replica);
    }
    return this;
  }

  /** The shard's assignment in the held table if it has this broker host it, else null. */
  private ShardAssignment hostedInHeldTable(ShardId id) {
    ShardAssignment a = registry.table().shards().get(id);
    return a != null && a.hostedBy(brokerId) ? a : null;
  }

  /** A file-system-safe, unique directory (and actor) name for a shard. */
  static String directoryName(ShardId id) {
    return URLEncoder.encode(id.stream(), StandardCharsets.UTF_8).replace("*", "%2A") + "-" + id.shard();
  }
}
