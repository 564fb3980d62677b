package io.felix.broker.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.time.Duration;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ClientListenerName;
import io.felix.broker.client.ClientListener;
import io.felix.broker.client.ClientListenerSettings;
import io.felix.broker.client.ClientRequests;
import io.felix.broker.log.DataDirectoryLock;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.RetentionSettings;
import io.felix.broker.client.ProduceForwarder;
import io.felix.broker.client.ProducerIdSource;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.broker.transport.PeerAuthentication;
import io.felix.broker.transport.TcpReplicationTransport;
import io.felix.broker.tls.TlsSettings;
import io.felix.broker.config.BrokerSettings;
import io.felix.broker.config.FileDescriptorCheck;
import io.felix.broker.config.ReplicaCapacity;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.ReplicaRoleBoard;
import io.felix.broker.replication.FetchSessions;
import io.felix.broker.replication.ReplicationInbound;
import io.felix.broker.security.BrokerSecurity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.Done;
import org.apache.pekko.actor.CoordinatedShutdown;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The data plane of one broker, inside an ActorSystem the caller has configured as a cluster node: the log
 * directory with its flusher (group commit), the {@link ReplicaDirectory} actor (and its {@link ReplicaRoleBoard},
 * which answers the admin API's lists from what the replicas published), the replication listener and
 * transport, and the client listener. Settings come from {@code felix.broker}, {@code felix.log},
 * {@code felix.replication} and {@code felix.client-listener}.
 */
public final class DataPlane {
  private static final Logger log = LoggerFactory.getLogger(DataPlane.class);

  private final ActorSystem<?> system;
  private final BrokerSettings broker;
  /** Logs made durable at once when the system stops: as many fsyncs in flight as Pekko's blocking-IO dispatcher. */
  private static final int CHECKPOINT_PARALLELISM = 16;
  /** Below the phase's 5 s, so that the task ends (and logs what it did) before Pekko gives up on it. */
  private static final Duration CHECKPOINT_TIMEOUT = Duration.ofSeconds(4);

  private final FlushScheduler flusher;
  private final ReplicaRegistry registry;
  private final TcpReplicationTransport transport;
  private final ProduceForwarder forwarder;
  private final ClientListener clientListener;
  /** The listener for clients outside the brokers' network (felix.broker.external-client-port), if configured. */
  private final Optional<ClientListener> externalListener;
  private final ClientRequests clientRequests;
  private final ActorRef<ReplicaDirectory.Command> directory;
  /** Released by the replica directory once its replicas stopped, and here again (idempotent) at termination. */
  private final DataDirectoryLock dataDirectoryLock;

  private DataPlane(ActorContext<?> guardian) {
    ActorSystem<?> system = guardian.getSystem();
    this.system = system;
    Config config = system.settings().config();
    this.broker = BrokerSettings.fromConfig(config);
    LogSettings logSettings = LogSettings.fromConfig(config.getConfig("felix.log"));
    ReplicationSettings replication = ReplicationSettings.from(config);
    ClientListenerSettings listener = ClientListenerSettings.from(config);
    checkOpenFileLimit(broker, listener, config);
    DataDirectoryLock dataDirectoryLock;
    try {
      Files.createDirectories(broker.dataDir());
      dataDirectoryLock = DataDirectoryLock.acquire(broker.dataDir());
    } catch (IOException e) {
      throw new UncheckedIOException("broker " + broker.id() + " cannot use felix.broker.data-dir "
          + broker.dataDir() + ": " + e.getMessage(), e);
    }
    this.dataDirectoryLock = dataDirectoryLock;
    this.flusher = FlushScheduler.start(logSettings, "felix-flusher-" + broker.id());
    this.registry = new ReplicaRegistry(broker.id());
    registry.retention(RetentionSettings.fromConfig(config.getConfig("felix.log")));
    registry.cache(io.felix.broker.cache.CacheSettings.fromConfig(config));
    AtomicReference<ProduceForwarder> forwarderRef = new AtomicReference<>();
    AtomicReference<ReplicationTransport> transportRef = new AtomicReference<>();
    AtomicReference<ClientRequests> clientRequestsRef = new AtomicReference<>();
    FetchSessions sessions = new FetchSessions(system, broker.id(), transportRef::get, replication, registry);
    registry.fetchFrom(sessions);
    ReplicationInbound inbound = new ReplicationInbound(registry, transportRef::get, forwarderRef::get,
        clientRequestsRef::get, BrokerSecurity.of(system), sessions);
    this.transport = TcpReplicationTransport.start(system, broker.id(), replication,
        PeerAuthentication.fromConfig(config), inbound, broker.host(), broker.replicationPort());
    transportRef.set(transport);
    this.forwarder = new ProduceForwarder(system, transport, replication);
    forwarderRef.set(forwarder);
    this.directory = guardian.spawn(
        ReplicaDirectory.create(broker.dataDir(), logSettings, flusher, transport, replication, registry,
            broker.quarantineRetention(), dataDirectoryLock),
        "replica-directory", ReplicaDirectory.DISPATCHER);
    guardian.spawn(ReplicaRoleBoard.create(registry), "replica-role-board");
    this.clientRequests = new ClientRequests(registry, forwarder, listener, BrokerSecurity.of(system));
    clientRequestsRef.set(clientRequests);
    TlsSettings tls = TlsSettings.fromConfig(config);
    this.clientListener = ClientListener.start(system, listener, tls, clientRequests, broker.host(),
        broker.clientPort(), ClientListenerName.INTERNAL);
    this.externalListener = broker.external().map(external -> ClientListener.start(system, listener, tls,
        clientRequests, broker.host(), external.port(), ClientListenerName.EXTERNAL));
    makeLogsDurableBeforeTheReplicasStop(system);
    system.getWhenTerminated().thenRun(this::releaseResources);
    log.info("broker {}: data plane started, data in {}, clients on {}:{}, replication on {}:{}", broker.id(),
        broker.dataDir(), broker.host(), clientListener.boundPort(), broker.host(), transport.boundPort());
  }

  /**
   * Starts the data plane under {@code guardian} (the ActorSystem's guardian, which owns the replica directory
   * and so stops every replica, closing its log, when the system terminates); returns once both listeners are
   * bound. The listeners, the transport and the flusher are released once the system has terminated, after the
   * replicas stopped.
   */
  public static DataPlane start(ActorContext<?> guardian) {
    return new DataPlane(guardian);
  }

  /**
   * Starts an ActorSystem named {@code felix} (configured by {@code config} as a cluster node) whose guardian runs
   * only a data plane, for tests and benchmarks of the data plane without the control plane. Terminating
   * {@link #system()} stops it.
   */
  public static DataPlane startInOwnSystem(Config config) {
    CompletableFuture<DataPlane> started = new CompletableFuture<>();
    ActorSystem<Void> system = ActorSystem.create(Behaviors.setup(context -> {
      try {
        started.complete(start(context));
      } catch (RuntimeException e) {
        started.completeExceptionally(e);
        throw e;
      }
      return Behaviors.empty();
    }), NodeConfig.SYSTEM_NAME, config);
    try {
      return started.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      system.terminate();
      throw new IllegalStateException("the data plane did not start: " + e.getMessage(), e);
    }
  }

  /**
   * The config of broker {@code id} for {@link #startInOwnSystem}: a cluster node on 127.0.0.1 with every port
   * picked free and its data in {@code dataDir}, several of them in one JVM; {@code overrides} (HOCON) win.
   */
  public static Config localConfig(int id, Path dataDir, String overrides) {
    return ConfigFactory.parseString(overrides).withFallback(ConfigFactory.parseString(
            "pekko.actor.provider = cluster\n"
            + "pekko.remote.artery.canonical.hostname = 127.0.0.1\n"
            + "pekko.remote.artery.canonical.port = 0\n"
            + "pekko.cluster.jmx.multi-mbeans-in-same-jvm = on\n"
            + "pekko.cluster.downing-provider-class = \"org.apache.pekko.cluster.sbr.SplitBrainResolverProvider\"\n"
            + "pekko.cluster.split-brain-resolver.active-strategy = keep-majority\n"
            + "felix.broker.id = " + id + "\n"
            + "felix.broker.data-dir = \"" + dataDir.toString().replace("\\", "/") + "\"\n"
            + "felix.broker.client-port = 0\n"
            + "felix.broker.replication-port = 0\n"))
        .withFallback(NodeConfig.pekkoOverrides())
        .withFallback(ConfigFactory.load());
  }

  public ActorSystem<?> system() {
    return system;
  }

  /** This broker's addresses with the bound ports; adminPort is 0 (the admin API is not part of the data plane). */
  public BrokerEndpoint endpoint() {
    return new BrokerEndpoint(broker.id(), broker.host(), clientListener.boundPort(), transport.boundPort(), 0);
  }

  public ActorRef<ReplicaDirectory.Command> directory() {
    return directory;
  }

  /** The data plane's view of its replicas, through which they report to the control plane. */
  public ReplicaRegistry registry() {
    return registry;
  }

  /** Produce batches this broker forwarded to other leaders (plain mode), and their record bytes. */
  /**
   * Where InitProducerId takes producer ids from: the broker's issuer (wired by {@link BrokerGuardian}); a data plane
   * started alone (tests, benchmarks) has none until its owner gives one.
   */
  public void useProducerIds(ProducerIdSource source) {
    clientRequests.useProducerIds(source);
  }

  /** The native client request path, which the Kafka listener translates its requests onto. */
  public ClientRequests clientRequests() {
    return clientRequests;
  }

  public void useGroups(io.felix.broker.client.GroupRequestSink sink) {
    clientRequests.useGroups(sink);
  }

  public long forwardedBatches() {
    return forwarder.forwardedBatches();
  }

  public long forwardedBytes() {
    return forwarder.forwardedBytes();
  }

  /** Bytes of frames this broker sent to other brokers (replication and forwarding). */
  public long replicationBytesSent() {
    return transport.bytesSent();
  }

  /** The client listener, for its connection and request-budget counts. */
  /** The listener for clients outside the brokers' network, if felix.broker.external-client-port names one. */
  public Optional<ClientListener> externalListener() {
    return externalListener;
  }

  public ClientListener clientListener() {
    return clientListener;
  }

  /** The peers this broker's replication connections suspect lost, in id order (see PeerSuspicion). */
  public java.util.SortedSet<Integer> suspectedPeers() {
    return transport.suspectedPeers();
  }

  /** The suspected peers whose replication connection closed and stays refused (see PeerSuspicion). */
  public java.util.SortedSet<Integer> closedPeers() {
    return transport.closedPeers();
  }

  /** Aborts this broker's replication connections as a network failure would (they reconnect). For tests. */
  public void abortReplicationConnections(String reason) {
    transport.abortConnections(reason);
  }

  /** Refuses to start when the open-file limit is below what felix.broker.max-shards needs (see FileDescriptorCheck). */
  private static void checkOpenFileLimit(BrokerSettings broker, ClientListenerSettings listener, Config config) {
    FileDescriptorCheck.processLimit().ifPresent(limit -> {
      FileDescriptorCheck.Finding finding =
          FileDescriptorCheck.judge(limit, broker.maxShards(), listener.limits().maxConnections());
      if (finding.fatal()) {
        throw new IllegalStateException("broker " + broker.id() + " cannot start: " + finding.message());
      }
      log.info("broker {}: {}", broker.id(), finding.message());
    });
    log.info("broker {} can host {}", broker.id(), ReplicaCapacity.of(config).explain());
  }

  /** Once, when the ActorSystem has terminated: every replica (the guardian's children) has stopped by then. */
  /**
   * When the system stops (a shutdown, or downed), just before its actors stop: every open log made durable to its
   * end, {@value #CHECKPOINT_PARALLELISM} at a time, so that each replica's close, one after another on the replica
   * dispatcher, has nothing left to fsync (see {@link FlushScheduler#checkpointAll}). Within the phase's own timeout
   * (Pekko's default, 5 s); the closes do whatever is left.
   */
  private void makeLogsDurableBeforeTheReplicasStop(ActorSystem<?> system) {
    CoordinatedShutdown.get(Adapter.toClassic(system)).addTask(
        CoordinatedShutdown.PhaseBeforeActorSystemTerminate(), "felix-logs-durable",
        () -> CompletableFuture.supplyAsync(() -> {
          long started = System.nanoTime();
          int logs = flusher.checkpointAll(CHECKPOINT_PARALLELISM, CHECKPOINT_TIMEOUT);
          log.info("broker {}: made {} logs durable before stopping ({} ms)", broker.id(), logs,
              TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
          return Done.getInstance();
        }));
  }

  private void releaseResources() {
    transport.close();
    clientListener.close();
    externalListener.ifPresent(ClientListener::close);
    flusher.close();
    try {
      dataDirectoryLock.close();
    } catch (IOException e) {
      log.warn("broker {}: releasing the lock of {} failed: {}", broker.id(), broker.dataDir(), e.toString());
    }
  }
}
