package io.felix.broker.node;

import io.felix.broker.config.BrokerSettings;

import com.typesafe.config.Config;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.node.ClusterSettings;
import io.felix.broker.control.ControlSettings;
import io.felix.broker.node.JournalSchema;
import io.felix.broker.node.JournalSettings;
import io.felix.broker.node.NodeConfig;
import io.felix.broker.control.PlacementController;
import io.felix.broker.http.AdminServer;
import io.felix.broker.http.HttpSettings;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The composition root of one broker: an ActorSystem configured as a cluster node ({@link NodeConfig}), the
 * journal schema, the data plane, the placement singleton (and this node's proxy to it), the assignment-table
 * holder and the admin HTTP server. Joins the seed nodes of {@code felix.cluster.seed-nodes}; tests join
 * programmatically ({@link #joinSelf()}, {@link #join(Address)}).
 */
public final class BrokerNode implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BrokerNode.class);

  private final ActorSystem<Void> system;
  private final BrokerSettings settings;
  /** What the guardian started: the data plane, the singleton's proxy, the holder, the admin server. */
  private final BrokerGuardian.Started started;

  private BrokerNode(ActorSystem<Void> system, BrokerSettings settings, BrokerGuardian.Started started) {
    this.system = system;
    this.settings = settings;
    this.started = started;
  }

  /** Starts a broker from the operator's config (defaults from reference.conf fill the rest). */
  public static BrokerNode start(Config userConfig) {
    Config config = NodeConfig.derive(userConfig);
    BrokerSettings settings = BrokerSettings.fromConfig(config);
    ClusterSettings clusterSettings = ClusterSettings.fromConfig(config);
    ControlSettings controlSettings = ControlSettings.fromConfig(config);
    HttpSettings httpSettings = HttpSettings.fromConfig(config);
    JournalSchema.ensure(JournalSettings.fromConfig(config));

    CompletableFuture<BrokerGuardian.Started> starting = new CompletableFuture<>();
    ActorSystem<Void> system = ActorSystem.create(
        BrokerGuardian.create(settings, controlSettings, httpSettings, starting), NodeConfig.SYSTEM_NAME, config);
    BrokerGuardian.Started started;
    try {
      started = starting.get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      system.terminate();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw cause instanceof RuntimeException r ? r : new IllegalStateException("the broker did not start: " + cause, cause);
    }
    if (!clusterSettings.seedNodes().isEmpty()) {
      List<Address> seeds = clusterSettings.seedNodes().stream().map(AddressFromURIString::parse).toList();
      ClusterJoin.start(system, seeds);
    }
    log.info("Broker {} started: cluster address {}, admin port {}", settings.id(), address(system),
        started.admin().port());
    return new BrokerNode(system, settings, started);
  }

  private static Address address(ActorSystem<?> system) {
    return Cluster.get(system).selfMember().address();
  }

  /** Forms a new cluster with this broker as its first member. */
  public void joinSelf() {
    join(address());
  }

  public void join(Address seed) {
    Cluster.get(system).manager().tell(Join.create(seed));
  }

  public Address address() {
    return address(system);
  }

  public int id() {
    return settings.id();
  }

  public int adminPort() {
    return started.admin().port();
  }

  public BrokerEndpoint endpoint() {
    return started.endpoint();
  }

  public DataPlane dataPlane() {
    return started.dataPlane();
  }

  public ActorSystem<Void> system() {
    return system;
  }

  public ActorRef<PlacementController.Command> singleton() {
    return started.singleton();
  }

  public ActorRef<AssignmentHolder.Command> holder() {
    return started.holder();
  }

  /** Leaves the cluster gracefully (CoordinatedShutdown) and stops everything. */
  @Override
  public void close() {
    if (system.getWhenTerminated().toCompletableFuture().isDone()) {
      return; // downed or already closed: the data plane released its resources on termination
    }
    started.admin().close();
    system.terminate(); // the guardian's children stop first: every replica closes its log
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("Broker {} did not stop within 30 s: {}", settings.id(), e.toString());
    }
  }
}
