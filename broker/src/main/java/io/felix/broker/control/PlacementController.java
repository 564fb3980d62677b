package io.felix.broker.control;

import io.felix.broker.assignment.BrokerRole;
import java.util.OptionalInt;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementDecisions.Decision;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.ReplicaProbe.ReplicaReport;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.wire.ControlMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The placement singleton: an event-sourced behaviour on the JDBC journal, run as a Cluster Singleton.
 * Decide, then apply: each command computes events ({@link PlacementDecisions}, {@link ReplicaRounds}), the
 * event handler folds them into {@link ControlState}, and only after they are stored does it push the new
 * assignment table (version + 1) to every broker's {@link AssignmentHolder} and answer. A singleton restarted
 * on another broker replays the journal and pushes the same table again.
 *
 * <p>Runtime knowledge that is not decided state (which brokers are reachable, the last pass, replica answers)
 * lives in fields: it is rebuilt from the cluster after a restart.
 */
public final class PlacementController
    extends EventSourcedBehavior<PlacementController.Command, PlacementEvent, ControlState> {

  public static final String PERSISTENCE_ID = "felix-placement";

  /**
   * The commands any broker may send (through its singleton proxy) cross Artery and so carry the
   * {@link ControlMessage} marker; the rest (timers, adapters, {@link ReplicaAnswered}) never leave this broker.
   */
  public sealed interface Command {}

  /** A broker's endpoints, zone and cap (sent by its holder until a table lists it). */
  public record RegisterBroker(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint)
      implements Command, ControlMessage {}

  public record CreateStream(String name, int shards, int replicationFactor, ActorRef<ControlReply> replyTo)
      implements Command, ControlMessage {}

  public record DeleteStream(String name, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record DrainBroker(int brokerId, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record RemoveBroker(int brokerId, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record PausePlacement(ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record ResumePlacement(ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record StartMove(String stream, int shard, int to, ActorRef<ControlReply> replyTo)
      implements Command, ControlMessage {}

  public record GetView(ActorRef<ControlView> replyTo) implements Command, ControlMessage {}

  /**
   * A replica's answer to a fence ({@code fenceEpoch} > 0) or describe; {@code report} null when it failed. Local
   * only: the singleton's own ask adapter builds it from the {@code ReplicaStatus} that crossed Artery.
   */
  public record ReplicaAnswered(int brokerId, ShardId shard, long fenceEpoch, ReplicaReport report) implements Command {}

  private record PlacementTick(String trigger) implements Command {}

  private record MembershipChanged(ClusterEvent.ClusterDomainEvent event) implements Command {}

  /** The receptionist's listing for the holders' or the data plane directories' key (one adapter serves both). */
  private record Listed(Receptionist.Listing listing) implements Command {}

  private enum ProgressTick implements Command { INSTANCE }

  private final ActorContext<Command> context;
  private final ControlSettings settings;
  private final PlacementDecisions decisions;
  private final ReplicaProbe probe;
  private final ReplicaRounds rounds;
  private final Cluster cluster;
  private Set<ActorRef<AssignmentHolder.Command>> holders = Set.of();
  private final Set<Integer> available = new TreeSet<>();
  private final Map<Integer, Long> lostSince = new HashMap<>();
  private final Map<Integer, Long> ledWhenLost = new HashMap<>();
  private final Map<Integer, Long> noticedLost = new HashMap<>();
  /** The incarnation of each broker id last seen up: another one for the same id means it restarted. */
  private final Map<Integer, UniqueAddress> incarnations = new HashMap<>();
  /** Shards whose leader restarted, with the epoch it led at: they fail over until a newer epoch is persisted. */
  private final Map<ShardId, Long> leaderRestarted = new HashMap<>();
  private boolean membershipSeen;
  private ControlView.LastPass lastPass = ControlView.LastPass.NONE;

  /**
   * @param probes builds the way to reach replicas, given this actor's context (answers come back as
   *     {@link ReplicaAnswered}) and where to send receptionist listings (handed back to the probe)
   */
  public static Behavior<Command> create(ControlSettings settings,
      BiFunction<ActorContext<Command>, ActorRef<Receptionist.Listing>, ReplicaProbe> probes) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      ActorRef<Receptionist.Listing> listings = context.messageAdapter(Receptionist.Listing.class, Listed::new);
      context.getSystem().receptionist().tell(Receptionist.subscribe(AssignmentHolder.SERVICE_KEY, listings));
      // Adapters are matched by class: a broad one (Object) would also swallow the receptionist's listings.
      ActorRef<ClusterEvent.ClusterDomainEvent> membership =
          context.messageAdapter(ClusterEvent.ClusterDomainEvent.class, MembershipChanged::new);
      Cluster cluster = Cluster.get(context.getSystem());
      cluster.subscriptions().tell(Subscribe.create(membership.narrow(), ClusterEvent.MemberEvent.class));
      cluster.subscriptions().tell(Subscribe.create(membership.narrow(), ClusterEvent.ReachabilityEvent.class));
      return new PlacementController(context, timers, settings, probes.apply(context, listings));
    }));
  }

  private PlacementController(ActorContext<Command> context, TimerScheduler<Command> timers, ControlSettings settings,
      ReplicaProbe probe) {
    super(PersistenceId.ofUniqueId(PERSISTENCE_ID));
    this.context = context;
    this.settings = settings;
    this.decisions = new PlacementDecisions(settings);
    this.probe = probe;
    this.rounds = new ReplicaRounds(settings, probe, context.getLog());
    this.cluster = Cluster.get(context.getSystem());
    timers.startTimerWithFixedDelay(new PlacementTick("timer"), settings.placementInterval());
    timers.startTimerWithFixedDelay(ProgressTick.INSTANCE, java.time.Duration.ofMillis(100));
  }

  @Override
  public ControlState emptyState() {
    return ControlState.EMPTY;
  }

  @Override
  public RetentionCriteria retentionCriteria() {
    return RetentionCriteria.snapshotEvery(settings.snapshotEvery(), 2);
  }

  @Override
  public EventHandler<ControlState, PlacementEvent> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent(ControlState::apply);
  }

  @Override
  public SignalHandler<ControlState> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.class, (state, signal) -> {
          context.getLog().info("Placement singleton recovered on {}: {} brokers, {} streams, {} shards, {} moves in"
              + " flight, table version {}", cluster.selfMember().address(), state.brokers().size(),
              state.streams().size(), state.shards().size(), state.moves().size(), state.tableVersion());
          refreshAvailability(state);
          publish(state);
        })
        .build();
  }

  @Override
  public CommandHandler<Command, PlacementEvent, ControlState> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(RegisterBroker.class, this::onRegisterBroker)
        .onCommand(CreateStream.class, (s, c) -> reply(decisions.createStream(s, available, c.name(), c.shards(),
            c.replicationFactor()), c.replyTo(), "stream created"))
        .onCommand(DeleteStream.class, (s, c) -> reply(decisions.deleteStream(s, c.name()), c.replyTo(), null))
        .onCommand(DrainBroker.class, (s, c) -> reply(decisions.drain(s, c.brokerId()), c.replyTo(), "drain requested"))
        .onCommand(RemoveBroker.class, (s, c) -> reply(decisions.remove(s, c.brokerId()), c.replyTo(), null))
        .onCommand(PausePlacement.class, (s, c) -> reply(decisions.pause(s, now()), c.replyTo(), null))
        .onCommand(ResumePlacement.class, (s, c) -> reply(decisions.resume(s, now()), c.replyTo(), "resumed"))
        .onCommand(StartMove.class, (s, c) -> reply(decisions.startMove(s, available, c.stream(), c.shard(), c.to(),
            now()), c.replyTo(), null))
        .onCommand(GetView.class, this::onGetView)
        .onCommand(ReplicaAnswered.class, this::onReplicaAnswered)
        .onCommand(PlacementTick.class, this::onPlacementTick)
        .onCommand(MembershipChanged.class, this::onMembershipChanged)
        .onCommand(Listed.class, this::onListed)
        .onCommand(ProgressTick.class, (s, c) -> onProgress(s))
        .build();
  }

  private Effect<PlacementEvent, ControlState> onRegisterBroker(ControlState state, RegisterBroker r) {
    List<PlacementEvent> events = decisions.register(state, r);
    if (events.isEmpty()) {
      publish(state);
      return Effect().none();
    }
    context.getLog().info("Broker {} registered: {} zone '{}' max-shards {}", r.brokerId(), r.endpoint(), r.zone(),
        r.maxShards());
    return persist(events).thenRun(s -> {
      refreshAvailability(s);
      context.getSelf().tell(new PlacementTick("broker joined"));
    });
  }

  private Effect<PlacementEvent, ControlState> reply(Decision decision, ActorRef<ControlReply> replyTo, String passTrigger) {
    if (decision.events().isEmpty()) {
      return Effect().reply(replyTo, decision.reply());
    }
    return persist(decision.events())
        .thenRun(s -> {
          if (passTrigger != null) {
            context.getSelf().tell(new PlacementTick(passTrigger));
          }
        })
        .thenReply(replyTo, s -> decision.reply());
  }

  private org.apache.pekko.persistence.typed.javadsl.EffectBuilder<PlacementEvent, ControlState> persist(
      List<PlacementEvent> events) {
    for (PlacementEvent event : events) {
      if (event instanceof MoveCompleted || event instanceof MoveAborted) {
        BrokerMetrics.of(context.getSystem()).moveFinished(event instanceof MoveCompleted);
      }
      if (event instanceof ShardPlaced) {
        context.getLog().debug("Decided {}", event);
      } else {
        context.getLog().info("Decided {}", event);
      }
    }
    return Effect().persist(events).thenRun(this::afterPersist);
  }

  private void afterPersist(ControlState state) {
    publish(state);
    BrokerMetrics.of(context.getSystem()).movesInFlight(state.moves().size());
    forgetPromoted(state);
    long now = now();
    ledWhenLost.entrySet().removeIf(lost -> {
      if (state.leadersOn(lost.getKey()) > 0) {
        return false;
      }
      Long since = noticedLost.get(lost.getKey());
      context.getLog().info("Failover of broker {} done: all {} shards it led have new leaders {} ms after this"
          + " singleton noticed it lost", lost.getKey(), lost.getValue(), since == null ? -1 : now - since);
      return true;
    });
  }

  private void publish(ControlState state) {
    AssignmentHolder.Publish publish = new AssignmentHolder.Publish(state.table());
    holders.forEach(holder -> holder.tell(publish));
  }

  private Effect<PlacementEvent, ControlState> onGetView(ControlState state, GetView get) {
    get.replyTo().tell(new ControlView(state, new ArrayList<>(available), lastPass, settings.strategy().wireName(),
        settings.maxConcurrentMoves(), settings.maxMovesPerBroker(), settings.placementInterval().toMillis()));
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onReplicaAnswered(ControlState state, ReplicaAnswered answer) {
    if (answer.report() == null) {
      return Effect().none();
    }
    rounds.answered(answer.report(), answer.fenceEpoch(), now());
    return onProgress(state); // an answer may complete a failover round or a move step: no need to wait a tick
  }

  private Effect<PlacementEvent, ControlState> onPlacementTick(ControlState state, PlacementTick tick) {
    refreshAvailability(state);
    publish(state); // Artery delivers at most once: resending lets a broker that missed a table catch up
    PlacementDecisions.Pass pass;
    try {
      pass = decisions.pass(state, available, now());
    } catch (RuntimeException e) {
      context.getLog().error("Placement pass ({}) failed: {}", tick.trigger(), e.getMessage());
      return Effect().none();
    }
    BrokerMetrics.of(context.getSystem()).placementPassRun();
    lastPass = new ControlView.LastPass(now(), tick.trigger(), PlacementSnapshots.describe(pass.plan()),
        pass.plan().leaderless().stream().map(Object::toString).toList());
    if (pass.events().isEmpty()) {
      return Effect().none();
    }
    context.getLog().info("Placement pass ({}) planned {}", tick.trigger(), lastPass.planned());
    return persist(pass.events());
  }

  private Effect<PlacementEvent, ControlState> onMembershipChanged(ControlState state, MembershipChanged changed) {
    context.getLog().debug("Cluster event {}", changed.event());
    if (changed.event() instanceof ClusterEvent.MemberUp || changed.event() instanceof ClusterEvent.MemberRemoved) {
      context.getSelf().tell(new PlacementTick(changed.event().getClass().getSimpleName()));
    }
    refreshAvailability(state);
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onListed(ControlState state, Listed listed) {
    if (!listed.listing().isForKey(AssignmentHolder.SERVICE_KEY)) {
      probe.listed(listed.listing());
      return Effect().none();
    }
    Set<ActorRef<AssignmentHolder.Command>> current = listed.listing().getServiceInstances(AssignmentHolder.SERVICE_KEY);
    Set<ActorRef<AssignmentHolder.Command>> added = new HashSet<>(current);
    added.removeAll(holders);
    context.getLog().debug("Assignment holders: {} ({} new)", current.size(), added.size());
    holders = current;
    AssignmentHolder.Publish publish = new AssignmentHolder.Publish(state.table());
    added.forEach(holder -> holder.tell(publish));
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onProgress(ControlState state) {
    refreshAvailability(state);
    List<PlacementEvent> events = rounds.progress(state, available, lostSince, leaderRestarted.keySet(), now());
    return events.isEmpty() ? Effect().none() : persist(events);
  }

  /**
   * Reachable = a member that is up (or weakly up) and not unreachable; its broker id is its role. A broker
   * absent from the membership when this singleton first looks was downed before it started (its old host
   * saw it go): it counts as lost for the whole failover timeout already.
   */
  private void refreshAvailability(ControlState state) {
    ClusterEvent.CurrentClusterState cs = cluster.state();
    Set<Member> unreachable = cs.getUnreachable();
    Set<Integer> members = new HashSet<>();
    Set<Integer> up = new HashSet<>();
    for (Member member : cs.getMembers()) {
      Integer id = brokerIdOf(member);
      if (id == null) {
        continue;
      }
      members.add(id);
      MemberStatus status = member.status();
      if ((status.equals(MemberStatus.up()) || status.equals(MemberStatus.weaklyUp())) && !unreachable.contains(member)) {
        up.add(id);
        noticeIncarnation(state, id, member.uniqueAddress());
      }
    }
    forgetPromoted(state);
    long now = now();
    for (int id : state.brokers().keySet()) {
      if (up.contains(id)) {
        noticedLost.remove(id);
        if (lostSince.remove(id) != null) {
          context.getLog().info("Broker {} is reachable again", id);
        }
        ledWhenLost.remove(id);
      } else if (!lostSince.containsKey(id)) {
        long since = !membershipSeen && !members.contains(id) ? now - settings.failoverTimeout().toMillis() : now;
        lostSince.put(id, since);
        noticedLost.put(id, now);
        long led = state.leadersOn(id);
        if (led > 0) {
          ledWhenLost.put(id, led);
        }
        context.getLog().info("Broker {} is not reachable ({} leaders); its shards fail over after {}", id, led,
            settings.failoverTimeout());
      }
    }
    membershipSeen = true;
    available.clear();
    available.addAll(up);
  }

  /**
   * A broker that comes back as a new incarnation within the failover timeout is never seen lost for long enough
   * to fail over, yet its replicas that led refuse to lead again at the epoch their log already holds (they may
   * have lost unflushed records their followers hold): those shards need a failover round now.
   */
  private void noticeIncarnation(ControlState state, int id, UniqueAddress incarnation) {
    UniqueAddress previous = incarnations.put(id, incarnation);
    if (previous == null || previous.equals(incarnation)) {
      return;
    }
    List<ShardId> led = new ArrayList<>();
    state.shards().values().stream().filter(a -> a.leader() == id).forEach(a -> {
      leaderRestarted.put(a.id(), a.leaderEpoch());
      led.add(a.id());
    });
    context.getLog().info("Broker {} restarted (was {}, now {}); the {} shards it led fail over: {}", id,
        previous.address(), incarnation.address(), led.size(), led);
  }

  /** A restarted leader's shard needs no more failover once a newer epoch (promotion, abort, move) is decided. */
  private void forgetPromoted(ControlState state) {
    leaderRestarted.entrySet().removeIf(mark -> {
      ShardAssignment a = state.shards().get(mark.getKey());
      return a == null || a.leaderEpoch() > mark.getValue();
    });
  }

  private static Integer brokerIdOf(Member member) {
    OptionalInt id = BrokerRole.idOf(member.getRoles());
    return id.isPresent() ? id.getAsInt() : null;
  }

  private static long now() {
    return System.currentTimeMillis();
  }
}
