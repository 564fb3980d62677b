package io.felix.broker.node;

import io.felix.broker.tls.TlsSettings;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.config.BrokerSettings;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.control.ControlSettings;
import io.felix.broker.config.ReplicaCapacity;
import io.felix.broker.control.DirectoryProbe;
import io.felix.broker.control.NotServingReports;
import io.felix.broker.control.ClosedPeerDowner;
import io.felix.broker.control.PeerSuspicionReporter;
import io.felix.broker.control.PlacementController;
import io.felix.broker.group.GroupManager;
import io.felix.broker.group.GroupSettings;
import io.felix.broker.group.LocalGroups;
import io.felix.broker.http.AdminRoutes;
import io.felix.broker.kafka.KafkaBroker;
import io.felix.broker.http.AdminServer;
import io.felix.broker.http.HttpSettings;
import io.felix.broker.http.LeaderCommitOffsets;
import io.felix.broker.http.ReplicaStatuses;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.SecurityHolder;
import io.felix.broker.shard.ReplicaDirectory;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import io.felix.broker.control.ProducerIdIssuer;
import org.apache.pekko.cluster.typed.ClusterSingleton;
import org.apache.pekko.cluster.typed.SingletonActor;

/**
 * The guardian of a broker's ActorSystem: it creates the broker's actors as its children (the data plane's
 * replica directory, the assignment holder) and starts the placement singleton, the admin server and the
 * listeners. Terminating the system therefore stops every replica (closing its log) before the data plane
 * releases its listeners and flusher, with no shutdown protocol of our own.
 */
final class BrokerGuardian {

  /** What the started broker exposes to {@link BrokerNode}. */
  record Started(DataPlane dataPlane, ActorRef<PlacementController.Command> singleton,
      ActorRef<AssignmentHolder.Command> holder, AdminServer admin, BrokerEndpoint endpoint) {}

  /**
   * How long replicas' reports that they are assigned to lead but do not are gathered before they go to the
   * singleton as one message: short against the failover it starts, long enough that a thousand replicas refusing
   * at once (a restart) make one message.
   */
  private static final Duration NOT_SERVING_BATCH_INTERVAL = Duration.ofMillis(100);

  private BrokerGuardian() {}

  /** What this broker tells the singleton it can host (see {@link ReplicaCapacity}). */
  private static int replicaCapacity(ActorContext<Void> context) {
    long replicas = ReplicaCapacity.of(context.getSystem().settings().config()).replicas();
    return (int) Math.min(Integer.MAX_VALUE, replicas);
  }

  /** {@code started} completes once every listener is bound, or exceptionally (the system then stops). */
  static Behavior<Void> create(BrokerSettings broker, ControlSettings control, HttpSettings http,
      CompletableFuture<Started> started) {
    return Behaviors.setup(context -> {
      try {
        started.complete(start(context, broker, control, http));
      } catch (RuntimeException e) {
        started.completeExceptionally(e);
        throw e;
      }
      return Behaviors.empty();
    });
  }

  private static Started start(ActorContext<Void> context, BrokerSettings broker, ControlSettings control,
      HttpSettings http) {
    DataPlane dataPlane = DataPlane.start(context);
    ActorRef<ReplicaDirectory.Command> directory = dataPlane.directory();
    ActorRef<PlacementController.Command> singleton = ClusterSingleton.get(context.getSystem()).init(
        SingletonActor.of(
            Behaviors.supervise(PlacementController.create(control, (singletonContext, listings) ->
                    new DirectoryProbe(singletonContext, listings, control.replicaTimeout())))
                .onFailure(SupervisorStrategy.restartWithBackoff(Duration.ofMillis(200), Duration.ofSeconds(5), 0.2)),
            "placement").withProps(PlacementController.DISPATCHER));
    ActorRef<NotServingReports.Command> notServing = context.spawn(
        NotServingReports.create(broker.id(), singleton, NOT_SERVING_BATCH_INTERVAL), "not-serving-reports");
    dataPlane.registry().reportNotServingTo(NotServingReports.sink(notServing), control.placementInterval());
    ActorRef<ProducerIdIssuer.Command> producerIds = context.spawn(
        ProducerIdIssuer.create(broker.id(), singleton, http.singletonTimeout()), "producer-id-issuer");
    dataPlane.useProducerIds(ProducerIdIssuer.source(producerIds));
    context.spawn(PeerSuspicionReporter.create(broker.id(), dataPlane::suspectedPeers, singleton, control),
        "peer-suspicion-reporter");
    if (control.downClosedPeers()) {
      context.spawn(ClosedPeerDowner.create(broker.id(), dataPlane::closedPeers, control.suspicionCheckInterval()),
          "closed-peer-downer");
    }
    ActorRef<GroupManager.Command> groups = context.spawn(GroupManager.create(dataPlane.registry(), singleton,
        GroupSettings.fromConfig(context.getSystem().settings().config()), java.time.Clock.systemUTC()),
        "group-manager");
    dataPlane.useGroups(GroupManager.sink(groups));
    LocalGroups.of(context.getSystem()).bind(groups, dataPlane.registry());
    KafkaBroker.startIfEnabled(context, dataPlane.registry(), dataPlane.clientRequests(), singleton, broker.host(),
        broker.advertisedHost().orElse(broker.host()));
    BrokerMetrics metrics = BrokerMetrics.of(context.getSystem());
    Consumer<AssignmentTable> applyToReplicas = table -> {
      directory.tell(new ReplicaDirectory.ApplyAssignments(table));
      metrics.assignmentsApplied(table);
    };
    ActorRef<AssignmentHolder.Command> holder = context.spawn(
        AssignmentHolder.create(broker, replicaCapacity(context), singleton, control.registerInterval(),
            applyToReplicas), "assignment-holder");
    context.spawn(SecurityHolder.create(BrokerSecurity.of(context.getSystem())), "security-holder");
    AdminRoutes routes = new AdminRoutes(context.getSystem(), singleton, holder, http, control,
        new LeaderCommitOffsets(context.getSystem(), control.replicaTimeout()),
        new ReplicaStatuses(context.getSystem(), control.replicaTimeout()));
    AdminServer admin = AdminServer.bind(context.getSystem(), http,
        TlsSettings.fromConfig(context.getSystem().settings().config()), routes);
    BrokerEndpoint data = dataPlane.endpoint();
    Optional<BrokerSettings.ExternalListener> external = broker.external();
    BrokerEndpoint endpoint = new BrokerEndpoint(broker.id(), broker.host(),
        broker.advertisedClientPort() > 0 ? broker.advertisedClientPort() : data.clientPort(),
        data.replicationPort(), admin.port(), broker.advertisedHost().orElse(broker.host()),
        external.map(BrokerSettings.ExternalListener::advertisedHost).orElse(""),
        external.map(x -> x.advertisedPort() > 0 ? x.advertisedPort() : dataPlane.externalListener().orElseThrow().boundPort())
            .orElse(0));
    holder.tell(new AssignmentHolder.Advertise(endpoint));
    context.spawn(JournalWarmup.create(broker.id()), "journal-warmup");
    return new Started(dataPlane, singleton, holder, admin, endpoint);
  }
}
