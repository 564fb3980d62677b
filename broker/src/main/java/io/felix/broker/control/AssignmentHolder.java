package io.felix.broker.control;

import io.felix.broker.config.BrokerSettings;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.wire.ControlMessage;
import io.felix.broker.assignment.ShardId;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per broker: keeps the newest {@link AssignmentTable} the placement singleton pushed (older or equal
 * versions are ignored, so a resent or reordered push is harmless), hands each new table to the local data
 * plane, and announces this broker's endpoints to the singleton until a table lists them. Registered with the
 * Receptionist so the singleton finds every broker.
 */
public final class AssignmentHolder extends AbstractBehavior<AssignmentHolder.Command> {

  public static final ServiceKey<Command> SERVICE_KEY = ServiceKey.create(Command.class, "felix-assignment-holder");

  /** Reachable from every broker through the Receptionist: all but the timer carry {@link ControlMessage}. */
  public sealed interface Command {}

  /** A table from the singleton. */
  public record Publish(AssignmentTable table) implements Command, ControlMessage {}

  /** Part {@code index} of {@code count} of a table too large for one Artery frame (see {@link TableChunks}). */
  public record PublishChunk(long version, int index, int count, AssignmentTable part)
      implements Command, ControlMessage {}

  /**
   * The table of {@code changes.version} as a change of the one of {@code baseVersion}: {@code changes} holds the
   * brokers, streams and stream settings whole and only the shards that changed; {@code removed} the shards gone.
   */
  public record PublishDelta(long baseVersion, AssignmentTable changes, List<ShardId> removed)
      implements Command, ControlMessage {
    public PublishDelta {
      removed = List.copyOf(removed);
    }
  }

  /** The newest table's version, repeated by the singleton: a holder behind it missed a change and asks again. */
  public record TableVersion(long version) implements Command, ControlMessage {}

  /** The broker's endpoints, once its listeners are bound. */
  public record Advertise(BrokerEndpoint endpoint) implements Command, ControlMessage {}

  /** Answered with the table held. */
  public record GetTable(ActorRef<AssignmentTable> replyTo) implements Command, ControlMessage {}

  private enum RegisterTick implements Command { INSTANCE }

  private final BrokerSettings broker;
  private final ActorRef<PlacementController.Command> singleton;
  private final Consumer<AssignmentTable> dataPlane;
  private BrokerEndpoint endpoint;
  private AssignmentTable table = AssignmentTable.EMPTY;
  private final TableChunks.Assembly assembly = new TableChunks.Assembly();
  private boolean acknowledged;
  private final Duration registerInterval;
  private final int replicaCapacity;
  /** When the whole table was last asked for; null before. */
  private Long askedForTableAtNanos;

  /** A holder of a broker that does not say how many replicas it can host. */
  public static Behavior<Command> create(BrokerSettings broker, ActorRef<PlacementController.Command> singleton,
      Duration registerInterval, Consumer<AssignmentTable> dataPlane) {
    return create(broker, 0, singleton, registerInterval, dataPlane);
  }

  /**
   * @param replicaCapacity the replicas this broker can host (see {@link ReplicaCapacityCheck}), 0 for unsaid
   * @param dataPlane receives every newer table (the data plane's directory), on this actor's thread
   */
  public static Behavior<Command> create(BrokerSettings broker, int replicaCapacity,
      ActorRef<PlacementController.Command> singleton, Duration registerInterval,
      Consumer<AssignmentTable> dataPlane) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      context.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, context.getSelf()));
      timers.startTimerWithFixedDelay(RegisterTick.INSTANCE, registerInterval);
      return new AssignmentHolder(context, broker, replicaCapacity, singleton, registerInterval, dataPlane);
    }));
  }

  private AssignmentHolder(ActorContext<Command> context, BrokerSettings broker, int replicaCapacity,
      ActorRef<PlacementController.Command> singleton, Duration registerInterval,
      Consumer<AssignmentTable> dataPlane) {
    super(context);
    this.replicaCapacity = replicaCapacity;
    this.registerInterval = registerInterval;
    this.broker = broker;
    this.singleton = singleton;
    this.dataPlane = dataPlane;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Publish.class, this::onPublish)
        .onMessage(PublishChunk.class, this::onPublishChunk)
        .onMessage(PublishDelta.class, this::onPublishDelta)
        .onMessage(TableVersion.class, this::onTableVersion)
        .onMessage(Advertise.class, this::onAdvertise)
        .onMessage(GetTable.class, this::onGetTable)
        .onMessageEquals(RegisterTick.INSTANCE, this::onRegisterTick)
        .build();
  }

  private Behavior<Command> onPublish(Publish publish) {
    AssignmentTable incoming = publish.table();
    if (incoming.version() <= table.version()) {
      return this;
    }
    table = incoming;
    if (endpoint != null && endpoint.equals(table.brokers().get(broker.id()))) {
      acknowledged = true;
    }
    getContext().getLog().debug("Broker {} holds assignment table version {} ({} shards)", broker.id(),
        table.version(), table.shards().size());
    dataPlane.accept(table);
    return this;
  }

  private Behavior<Command> onPublishChunk(PublishChunk chunk) {
    if (chunk.version() <= table.version()) {
      return this;
    }
    return assembly.add(chunk).map(whole -> onPublish(new Publish(whole))).orElse(this);
  }

  private Behavior<Command> onPublishDelta(PublishDelta delta) {
    if (delta.changes().version() <= table.version()) {
      return this;
    }
    return TableDeltas.apply(table, delta).map(whole -> onPublish(new Publish(whole)))
        .orElseGet(() -> askForTable(delta.changes().version()));
  }

  private Behavior<Command> onTableVersion(TableVersion newest) {
    return newest.version() > table.version() ? askForTable(newest.version()) : this;
  }

  /** A change was missed: the singleton sends the whole table (at most once per register interval is asked). */
  private Behavior<Command> askForTable(long newest) {
    long now = System.nanoTime();
    if (askedForTableAtNanos == null || now - askedForTableAtNanos >= registerInterval.toNanos()) {
      askedForTableAtNanos = now;
      getContext().getLog().debug("Broker {} holds table v{} but v{} exists: asking for the whole table", broker.id(),
          table.version(), newest);
      singleton.tell(new PlacementController.TableWanted(broker.id(), table.version(), getContext().getSelf()));
    }
    return this;
  }

  private Behavior<Command> onAdvertise(Advertise advertise) {
    endpoint = advertise.endpoint();
    acknowledged = endpoint.equals(table.brokers().get(broker.id()));
    register();
    return this;
  }

  private Behavior<Command> onGetTable(GetTable get) {
    boolean remote = !get.replyTo().path().address().hasLocalScope();
    if (remote && !TableChunks.fitsOneMessage(table)) {
      // Too large for one Artery frame: the singleton learns the version alone. Its content then differs from the
      // singleton's table of that version, so a new singleton numbers its next table above it, as it must anyway.
      get.replyTo().tell(new AssignmentTable(table.version(), table.brokers(), java.util.Map.of(),
          java.util.Collections.emptySortedMap()));
    } else {
      get.replyTo().tell(table);
    }
    return this;
  }

  private Behavior<Command> onRegisterTick() {
    // Once a table lists this broker the journal has it: a removed broker stays removed until it restarts.
    if (endpoint != null && !acknowledged) {
      register();
    }
    return this;
  }

  private void register() {
    singleton.tell(new PlacementController.RegisterBroker(broker.id(), broker.zone().orElse(""), broker.maxShards(),
        endpoint, replicaCapacity));
  }
}
