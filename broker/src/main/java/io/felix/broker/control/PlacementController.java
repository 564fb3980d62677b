package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.PlacementDecisions.Decision;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.TableVersionRaised;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.security.SecurityEvent;
import io.felix.broker.security.SecurityHolder;
import io.felix.broker.shard.NotServingReason;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ReplicaStatuses;
import io.felix.broker.wire.ControlMessage;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.SupervisorStrategy;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.Effect;
import org.apache.pekko.persistence.typed.javadsl.EffectBuilder;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.RetentionCriteria;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * The placement singleton: an event-sourced behaviour on the JDBC journal, run as a Cluster Singleton. It routes
 * commands and persists decisions. Decide, then apply: each command computes events ({@link PlacementDecisions}
 * for operator commands and placement passes, {@link FailoverRounds} and {@link MoveProgress} for conversations
 * with replicas), the event handler folds them into {@link ControlState}, and only after they are stored do the
 * side effects run: the new assignment table (version + 1) is pushed to every broker's {@link AssignmentHolder},
 * metrics are recorded and the command answered. A singleton restarted on another broker replays the journal
 * and pushes the same table again.
 *
 * <p>Runtime knowledge that is not decided state (which brokers are reachable: {@link BrokerLiveness}; the last
 * pass; replica answers) lives in fields: it is rebuilt from the cluster after a restart.
 */
public final class PlacementController
    extends EventSourcedBehavior<PlacementController.Command, PlacementEvent, ControlState> {

  /**
   * Where the singleton runs: a thread of its own, not the default dispatcher, which also runs its host's replication
   * connections (see felix.own-thread-dispatcher in reference.conf).
   */
  public static final DispatcherSelector DISPATCHER = DispatcherSelector.fromConfig("felix.own-thread-dispatcher");

  public static final String PERSISTENCE_ID = "felix-placement";

  /**
   * The commands any broker may send (through its singleton proxy) cross Artery and so carry the
   * {@link ControlMessage} marker; the rest (timers, adapters, {@link ReplicaAnswered}) never leave this broker.
   */
  public sealed interface Command {}

  /**
   * A broker's endpoints, zone, cap and capacity (sent by its holder until a table lists it).
   *
   * @param replicaCapacity the replicas it can host (open-file limit and heap), 0 for unsaid
   */
  public record RegisterBroker(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint, int replicaCapacity)
      implements Command, ControlMessage {

    public RegisterBroker(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint) {
      this(brokerId, zone, maxShards, endpoint, 0);
    }
  }

  /** @param config the stream's own settings ({@link StreamConfig#DEFAULTS}: the broker defaults) */
  public record CreateStream(String name, int shards, int replicationFactor, StreamConfig config,
      ActorRef<ControlReply> replyTo) implements Command, ControlMessage {
    public CreateStream(String name, int shards, int replicationFactor, ActorRef<ControlReply> replyTo) {
      this(name, shards, replicationFactor, StreamConfig.DEFAULTS, replyTo);
    }
  }

  /**
   * PATCH /v1/streams/{name}: the settings {@code change} sets (non-null) replace the stream's; {@code shards}, when
   * not null, is the new (larger) shard count.
   */
  public record ChangeStream(String name, StreamConfig change, Integer shards, ActorRef<ControlReply> replyTo)
      implements Command, ControlMessage {}

  public record DeleteStream(String name, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record DrainBroker(int brokerId, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record UndrainBroker(int brokerId, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record RemoveBroker(int brokerId, ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record PausePlacement(ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record ResumePlacement(ActorRef<ControlReply> replyTo) implements Command, ControlMessage {}

  public record StartMove(String stream, int shard, int to, ActorRef<ControlReply> replyTo)
      implements Command, ControlMessage {}

  public record GetView(ActorRef<ControlView> replyTo) implements Command, ControlMessage {}

  /** The streams alone, for the admin API's list: small, where a {@link ControlView} carries every shard. */
  public record GetStreams(ActorRef<StreamList> replyTo) implements Command, ControlMessage {}

  /** A broker's {@link ProducerIdIssuer} wants a new block of producer ids; answered once the allocation is stored. */
  public record AllocateProducerIds(int brokerId, ActorRef<ProducerIdBlock> replyTo)
      implements Command, ControlMessage {}

  /**
   * One broker's answer to a batch of fences or describes (see {@link DirectoryProbe}). Local only: the probe's
   * adapter wraps the {@link ReplicaStatuses} that crossed Artery.
   */
  public record ReplicasAnswered(ReplicaStatuses answer) implements Command {}

  /** A replica assigned to lead {@code shard} at {@code epoch} that does not, and why. */
  public record NotServing(ShardId shard, long epoch, NotServingReason reason) {}

  /**
   * Replicas on {@code brokerId} assigned to lead but not leading, gathered by its {@link NotServingReports} (each
   * replica repeats its report every placement interval until a newer epoch or another leader reaches it).
   */
  public record LeadersNotServing(int brokerId, List<NotServing> reports) implements Command, ControlMessage {
    public LeadersNotServing {
      reports = List.copyOf(reports);
    }
  }

  /** A holder that missed a table change (a gap in the versions): it gets the whole table. */
  public record TableWanted(int brokerId, long heldVersion, ActorRef<AssignmentHolder.Command> holder)
      implements Command, ControlMessage {}

  /**
   * The peers broker {@code brokerId}'s replication connections suspect lost (see
   * {@link io.felix.broker.transport.PeerSuspicion}), in id order; sent on every change and repeated.
   */
  public record PeersSuspected(int brokerId, List<Integer> suspected) implements Command, ControlMessage {}

  /** Users, tokens or ACLs (admin API): checked against the state, persisted, pushed to every broker, answered. */
  public record ChangeSecurity(SecurityEvent change, ActorRef<ControlReply> replyTo)
      implements Command, ControlMessage {}

  private record PlacementTick(PassTrigger trigger) implements Command {}

  private record MembershipChanged(ClusterEvent.ClusterDomainEvent event) implements Command {}

  /** The receptionist's listing for the holders' or the data plane directories' key (one adapter serves both). */
  private record Listed(Receptionist.Listing listing) implements Command {}

  private enum ProgressTick implements Command { INSTANCE }

  /**
   * Progress at once (an answer may complete a round), coalesced: however many answers arrive together, one pass over
   * the rounds runs after them, not one per answer.
   */
  private enum ProgressNow implements Command { INSTANCE }

  /** A holder's answer to {@link AssignmentHolder.GetTable}: the table its broker holds. */
  private record TableHeld(AssignmentTable table) implements Command {}

  /** The holders listed at start had their time to say which table they hold: publish whatever answered. */
  private enum HeldTablesWaitOver implements Command { INSTANCE }

  private final ActorContext<Command> context;
  private final TimerScheduler<Command> timers;
  private final ControlSettings settings;
  private final Clock clock;
  private final PlacementDecisions decisions;
  private final ReplicaProbe probe;
  private final BrokerLiveness liveness;
  private final FailoverRounds failovers;
  private final MoveProgress moves;
  private final LeaderCheck leaders;
  private final Cluster cluster;
  private final BrokerMetrics metrics;
  private Set<ActorRef<AssignmentHolder.Command>> holders = Set.of();
  private final ActorRef<AssignmentTable> heldTables;
  /**
   * Answers still awaited from the holders of the first listing, -1 before it: until they answered (or the
   * replica timeout passed) nothing is published, since a broker may hold a newer table than the journal knows.
   */
  private int heldTablesAwaited = -1;
  private boolean publishing;
  /** Whether the cluster counted as starting at the last progress (see {@link BrokerLiveness#clusterStarting}). */
  private boolean wasStarting;
  private boolean progressQueued;
  private final TablePublisher tables = new TablePublisher();
  private final SecurityPublishing security = new SecurityPublishing();
  private ControlView.LastPass lastPass = ControlView.LastPass.NONE;

  /**
   * @param probes builds the way to reach replicas, given this actor's context (answers come back as
   *     {@link ReplicaAnswered}) and where to send receptionist listings (handed back to the probe)
   */
  public static Behavior<Command> create(ControlSettings settings,
      BiFunction<ActorContext<Command>, ActorRef<Receptionist.Listing>, ReplicaProbe> probes) {
    return create(settings, Clock.systemUTC(), probes);
  }

  /** @param clock the time of decisions (move start and end, timeouts); the system clock in production */
  public static Behavior<Command> create(ControlSettings settings, Clock clock,
      BiFunction<ActorContext<Command>, ActorRef<Receptionist.Listing>, ReplicaProbe> probes) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      ActorRef<Receptionist.Listing> listings = context.messageAdapter(Receptionist.Listing.class, Listed::new);
      context.getSystem().receptionist().tell(Receptionist.subscribe(AssignmentHolder.SERVICE_KEY, listings));
      context.getSystem().receptionist().tell(Receptionist.subscribe(SecurityHolder.SERVICE_KEY, listings));
      // Adapters are matched by class: a broad one (Object) would also swallow the receptionist's listings.
      ActorRef<ClusterEvent.ClusterDomainEvent> membership =
          context.messageAdapter(ClusterEvent.ClusterDomainEvent.class, MembershipChanged::new);
      Cluster cluster = Cluster.get(context.getSystem());
      cluster.subscriptions().tell(Subscribe.create(membership.narrow(), ClusterEvent.MemberEvent.class));
      cluster.subscriptions().tell(Subscribe.create(membership.narrow(), ClusterEvent.ReachabilityEvent.class));
      ActorRef<AssignmentTable> heldTables = context.messageAdapter(AssignmentTable.class, TableHeld::new);
      return new PlacementController(context, timers, settings, clock, probes.apply(context, listings), heldTables);
    }));
  }

  private PlacementController(ActorContext<Command> context, TimerScheduler<Command> timers, ControlSettings settings,
      Clock clock, ReplicaProbe probe, ActorRef<AssignmentTable> heldTables) {
    // A journal failure (a write, or the recovery itself) restarts the behaviour, which recovers again: the
    // singleton must not stop, or placement and failover stop with it until its host leaves the cluster.
    super(PersistenceId.ofUniqueId(PERSISTENCE_ID), SupervisorStrategy.restartWithBackoff(
        settings.journalRestartMinBackoff(), settings.journalRestartMaxBackoff(), 0.2));
    this.context = context;
    this.timers = timers;
    this.settings = settings;
    this.clock = clock;
    this.decisions = new PlacementDecisions(settings);
    this.probe = probe;
    this.heldTables = heldTables;
    this.liveness = new BrokerLiveness(settings, clock, context.getLog());
    ProbeContext probing = new ProbeContext(settings, probe, clock, context.getLog());
    this.failovers = new FailoverRounds(probing);
    this.moves = new MoveProgress(probing);
    this.leaders = new LeaderCheck(probing);
    this.cluster = Cluster.get(context.getSystem());
    this.metrics = BrokerMetrics.of(context.getSystem());
    timers.startTimerWithFixedDelay(new PlacementTick(PassTrigger.TIMER), settings.placementInterval());
    timers.startTimerWithFixedDelay(ProgressTick.INSTANCE, settings.progressInterval());
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
          refreshLiveness(state);
          publish(state);
          askEveryLeader();
        })
        .onSignal(RecoveryFailed.class, (state, signal) -> context.getLog().warn("Placement singleton could not"
            + " recover from the journal ({}); it tries again after a backoff of {} to {}",
            signal.getFailure().getMessage(), settings.journalRestartMinBackoff(), settings.journalRestartMaxBackoff()))
        .build();
  }

  @Override
  public CommandHandler<Command, PlacementEvent, ControlState> commandHandler() {
    return newCommandHandlerBuilder().forAnyState()
        .onCommand(RegisterBroker.class, this::onRegisterBroker)
        .onCommand(CreateStream.class, (s, c) -> reply(decisions.createStream(s, liveness.available(), c.name(),
            c.shards(), c.replicationFactor(), c.config()), c.replyTo(), PassTrigger.STREAM_CREATED))
        .onCommand(ChangeStream.class, (s, c) -> reply(decisions.changeStream(s, liveness.available(), c.name(),
            c.change(), c.shards()), c.replyTo(), c.shards() == null ? null : PassTrigger.STREAM_CREATED))
        .onCommand(DeleteStream.class, (s, c) -> reply(decisions.deleteStream(s, c.name()), c.replyTo(), null))
        .onCommand(DrainBroker.class, (s, c) -> reply(decisions.drain(s, c.brokerId()), c.replyTo(),
            PassTrigger.DRAIN_REQUESTED))
        .onCommand(UndrainBroker.class, (s, c) -> reply(decisions.undrain(s, c.brokerId()), c.replyTo(),
            PassTrigger.DRAIN_STOPPED))
        .onCommand(RemoveBroker.class, (s, c) -> reply(decisions.remove(s, c.brokerId()), c.replyTo(), null))
        .onCommand(PausePlacement.class, (s, c) -> reply(decisions.pause(s, clock.millis()), c.replyTo(), null))
        .onCommand(ResumePlacement.class, (s, c) -> reply(decisions.resume(s, clock.millis()), c.replyTo(),
            PassTrigger.RESUMED))
        .onCommand(StartMove.class, (s, c) -> reply(decisions.startMove(s, liveness.available(), c.stream(),
            c.shard(), c.to(), clock.millis()), c.replyTo(), null))
        .onCommand(GetView.class, this::onGetView)
        .onCommand(GetStreams.class, this::onGetStreams)
        .onCommand(AllocateProducerIds.class, this::onAllocateProducerIds)
        .onCommand(ChangeSecurity.class, (s, c) -> reply(SecurityDecisions.decide(s.security(), c.change()),
            c.replyTo(), null))
        .onCommand(ReplicasAnswered.class, this::onReplicasAnswered)
        .onCommand(LeadersNotServing.class, this::onLeadersNotServing)
        .onCommand(TableWanted.class, this::onTableWanted)
        .onCommand(PeersSuspected.class, this::onPeersSuspected)
        .onCommand(PlacementTick.class, this::onPlacementTick)
        .onCommand(MembershipChanged.class, this::onMembershipChanged)
        .onCommand(Listed.class, this::onListed)
        .onCommand(ProgressTick.class, (s, c) -> onProgress(s))
        .onCommand(ProgressNow.class, (s, c) -> {
          progressQueued = false;
          return onProgress(s);
        })
        .onCommand(TableHeld.class, this::onTableHeld)
        .onCommand(HeldTablesWaitOver.class, (s, c) -> {
          liveness.heldTablesUnanswered();
          startPublishing(s);
          return Effect().none();
        })
        .build();
  }

  private Effect<PlacementEvent, ControlState> onRegisterBroker(ControlState state, RegisterBroker r) {
    List<PlacementEvent> events = decisions.register(state, r);
    if (events.isEmpty()) {
      publish(state);
      return Effect().none();
    }
    return persist(events).thenRun(s -> {
      context.getLog().info("Broker {} registered: {} zone '{}' max-shards {}", r.brokerId(), r.endpoint(), r.zone(),
          r.maxShards());
      refreshLiveness(s);
      context.getSelf().tell(new PlacementTick(PassTrigger.BROKER_JOINED));
    });
  }

  /** @param passTrigger the placement pass to run once the events are stored, null for none */
  private Effect<PlacementEvent, ControlState> reply(Decision decision, ActorRef<ControlReply> replyTo,
      PassTrigger passTrigger) {
    if (decision.events().isEmpty()) {
      return Effect().reply(replyTo, decision.reply());
    }
    return persist(decision.events())
        .thenRun(s -> {
          if (passTrigger != null) {
            context.getSelf().tell(new PlacementTick(passTrigger));
          }
        })
        .thenReply(replyTo, s -> decision.reply().storedAt(s.tableVersion()));
  }

  /** Persists the events; everything they cause outside the state runs once they are stored. */
  private EffectBuilder<PlacementEvent, ControlState> persist(List<PlacementEvent> events) {
    return Effect().persist(events).thenRun(state -> afterPersist(events, state));
  }

  private void afterPersist(List<PlacementEvent> events, ControlState state) {
    for (PlacementEvent event : events) {
      DecisionLog.log(context.getLog(), event);
      if (event instanceof MoveCompleted || event instanceof MoveAborted) {
        metrics.moveFinished(event instanceof MoveCompleted);
      }
    }
    publish(state);
    metrics.movesInFlight(state.moves().size());
    for (BrokerLiveness.FailoverDone done : liveness.decided(state)) {
      context.getLog().info("Failover of broker {} done: all {} shards it led have new leaders {} ms after this"
          + " singleton noticed it lost", done.brokerId(), done.shardsLed(), done.millisSinceNoticed());
    }
  }

  /** Pushes the table to every holder: as a change of the last one pushed where it can (see {@link TableDeltas}). */
  private void publish(ControlState state) {
    security.publish(state.security());
    if (publishing) {
      tables.publish(state.table(), holders);
    }
  }

  /**
   * Persisted before the answer (and applied before the next command: the behaviour stashes while persisting), so
   * no block is handed out twice, by this singleton or a later one.
   */
  private Effect<PlacementEvent, ControlState> onAllocateProducerIds(ControlState state, AllocateProducerIds a) {
    ProducerIdBlock block = new ProducerIdBlock(state.nextProducerId(), ProducerIdBlock.SIZE);
    return Effect().persist(new PlacementEvent.ProducerIdsAllocated(a.brokerId(), block.firstId(), block.count()))
        .thenRun(s -> context.getLog().info("Allocated producer ids [{}, {}) to broker {}", block.firstId(),
            block.endId(), a.brokerId()))
        .thenReply(a.replyTo(), s -> block);
  }

  private Effect<PlacementEvent, ControlState> onGetView(ControlState state, GetView get) {
    get.replyTo().tell(new ControlView(state, new ArrayList<>(liveness.available()), lastPass,
        settings.strategy().wireName(), settings.maxConcurrentMoves(), settings.maxMovesPerBroker(),
        settings.placementInterval().toMillis()));
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onGetStreams(ControlState state, GetStreams get) {
    get.replyTo().tell(StreamList.of(state));
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onReplicasAnswered(ControlState state, ReplicasAnswered answered) {
    if (ReplicaProbe.answersRolesOnly(answered.answer().requestId())) {
      ReplicaStatuses answer = answered.answer();
      leaders.answeredRoles(answer, probe.rolesAsked(answer.requestId()));
      return answer.statuses().isEmpty() ? Effect().none() : progressSoon();
    }
    Map<ShardId, Long> fenceEpochs = probe.answered(answered.answer().requestId());
    for (ReplicaStatus status : answered.answer().statuses()) {
      long fenceEpoch = fenceEpochs.getOrDefault(status.id(), 0L);
      failovers.answered(status, fenceEpoch);
      moves.answered(status, fenceEpoch);
      leaders.answered(status, fenceEpoch, answered.answer().tableVersion());
    }
    return progressSoon(); // answers may complete failover rounds or move steps: no need to wait a tick
  }

  private Effect<PlacementEvent, ControlState> onLeadersNotServing(ControlState state, LeadersNotServing batch) {
    boolean any = false;
    for (NotServing report : batch.reports()) {
      any |= leaders.reported(state, report.shard(), batch.brokerId(), report.epoch(), report.reason());
    }
    return any ? progressSoon() : Effect().none(); // their failover rounds start now, not at the next tick
  }

  private Effect<PlacementEvent, ControlState> onTableWanted(ControlState state, TableWanted wanted) {
    if (publishing) {
      context.getLog().debug("Broker {} holds table v{} and missed a change: sending it table v{} whole",
          wanted.brokerId(), wanted.heldVersion(), state.tableVersion());
      tables.publishWhole(state.table(), wanted.holder());
    }
    return Effect().none();
  }

  /** Queues one {@link ProgressNow} behind whatever is already in the inbox, unless one is queued already. */
  private Effect<PlacementEvent, ControlState> progressSoon() {
    if (!progressQueued) {
      progressQueued = true;
      context.getSelf().tell(ProgressNow.INSTANCE);
    }
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onPeersSuspected(ControlState state, PeersSuspected report) {
    if (!liveness.suspected(report.brokerId(), Set.copyOf(report.suspected()))) {
      return Effect().none();
    }
    return progressSoon(); // a broker a majority now suspects fails over at once, not at the next tick
  }

  private Effect<PlacementEvent, ControlState> onPlacementTick(ControlState state, PlacementTick tick) {
    refreshLiveness(state);
    security.publish(state.security());
    if (publishing) { // Artery delivers at most once: a holder that missed a change learns so and asks again
      tables.remind(state.tableVersion(), holders);
    }
    PlacementDecisions.Pass pass;
    try {
      pass = decisions.pass(state, liveness.available(), failingOver(state), clock.millis());
    } catch (RuntimeException e) {
      context.getLog().error("Placement pass ({}) failed: {}", tick.trigger(), e.getMessage());
      return Effect().none();
    }
    metrics.placementPassRun();
    lastPass = new ControlView.LastPass(clock.millis(), tick.trigger(), PlacementSnapshots.describe(pass.plan()),
        pass.plan().leaderless().stream().map(Object::toString).toList());
    if (pass.events().isEmpty()) {
      return Effect().none();
    }
    context.getLog().info("Placement pass ({}) planned {}", tick.trigger(), lastPass.planned());
    return persist(pass.events());
  }

  private Effect<PlacementEvent, ControlState> onMembershipChanged(ControlState state, MembershipChanged changed) {
    context.getLog().debug("Cluster event {}", changed.event());
    if (changed.event() instanceof ClusterEvent.MemberUp) {
      context.getSelf().tell(new PlacementTick(PassTrigger.MEMBER_UP));
      askEveryLeader();
    } else if (changed.event() instanceof ClusterEvent.MemberRemoved) {
      context.getSelf().tell(new PlacementTick(PassTrigger.MEMBER_REMOVED));
    }
    refreshLiveness(state);
    return Effect().none();
  }

  private Effect<PlacementEvent, ControlState> onListed(ControlState state, Listed listed) {
    if (security.listed(listed.listing(), state.security())) {
      return Effect().none();
    }
    if (!listed.listing().isForKey(AssignmentHolder.SERVICE_KEY)) {
      probe.listed(listed.listing());
      return Effect().none();
    }
    holdersListed(state, listed.listing().getServiceInstances(AssignmentHolder.SERVICE_KEY));
    return Effect().none();
  }

  /**
   * The receptionist lists {@code current} as the brokers' assignment holders: each new one is asked which table it
   * holds and, once this singleton publishes, sent the whole table. The holders of the first listing are waited for
   * (at most a replica timeout from this first question, see {@link HeldTablesWaitOver}) before anything is published:
   * what they held before tells a whole-cluster start from a takeover (see {@link BrokerLiveness#heldTable}).
   */
  private void holdersListed(ControlState state, Set<ActorRef<AssignmentHolder.Command>> current) {
    Set<ActorRef<AssignmentHolder.Command>> added = new HashSet<>(current);
    added.removeAll(holders);
    context.getLog().debug("Assignment holders: {} ({} new)", current.size(), added.size());
    holders = current;
    added.forEach(holder -> holder.tell(new AssignmentHolder.GetTable(heldTables)));
    if (heldTablesAwaited < 0) {
      heldTablesAwaited = added.size();
      // From this first listing, not from this actor's start: the journal's recovery (seconds with 10,000 shards)
      // comes in between, and a wait that ran out before the first answer could come ended every whole-cluster start
      // whose brokers were all up at the first look (measured 2026-12-07: recovered 2.7 s after the start). With no
      // holder listed yet, nothing is waited for, and the first look decides once the wait is over.
      timers.startSingleTimer(HeldTablesWaitOver.INSTANCE, settings.replicaTimeout());
      if (added.isEmpty()) {
        startPublishing(state);
      }
    } else if (publishing) {
      added.forEach(holder -> tables.publishWhole(state.table(), holder));
    }
  }

  /**
   * A broker holds a table this singleton would number the same or lower, with other content: the journal lost
   * decisions the previous singleton published. The next table is numbered above it; reusing its version with
   * other content would have brokers ignore the new table, or hold different tables under one version.
   */
  private Effect<PlacementEvent, ControlState> onTableHeld(ControlState state, TableHeld held) {
    AssignmentTable table = held.table();
    if (!publishing) {
      // Before this singleton publishes, what a broker holds is what it held before this singleton started. After,
      // a holder listed late may hold a table this singleton sent it on its request (TableWanted), which says nothing.
      liveness.heldTable(table.version());
    }
    boolean ahead = table.version() > state.tableVersion()
        || (table.version() == state.tableVersion() && !table.equals(state.table()));
    if (!ahead) {
      heldTableAnswered(state);
      return Effect().none();
    }
    context.getLog().warn("A broker holds assignment table version {}, which this singleton's journal (version {})"
        + " does not have: the journal lost decisions; tables are numbered from {} on", table.version(),
        state.tableVersion(), table.version() + 1);
    return persist(List.of(new TableVersionRaised(table.version()))).thenRun(this::heldTableAnswered);
  }

  private void heldTableAnswered(ControlState state) {
    if (!publishing && heldTablesAwaited > 0 && --heldTablesAwaited == 0) {
      startPublishing(state);
    }
  }

  private void startPublishing(ControlState state) {
    if (!publishing) {
      publishing = true;
      context.getLog().debug("Publishing assignment tables from version {}", state.tableVersion());
      publish(state);
    }
  }

  /**
   * Failover first: a shard whose leader is lost or restarted, whose leader does not serve (see
   * {@link LeaderCheck}), or whose fenced move timed out, gets a failover round, and its move waits for the round to end it; every other move takes its next step.
   */
  private Effect<PlacementEvent, ControlState> onProgress(ControlState state) {
    refreshLiveness(state);
    Set<Integer> available = liveness.available();
    leaders.ask(state, available);
    Set<ShardId> failingOver = failingOver(state);
    List<PlacementEvent> events = new ArrayList<>();
    boolean starting = liveness.clusterStarting();
    if (wasStarting && !starting) {
      context.getLog().info("Cluster start over: {}", failovers.waitingFor(state));
    }
    wasStarting = starting;
    List<PlacementEvent> failover = failovers.progress(state, available, failingOver, starting);
    if (!failover.isEmpty()) {
      events.add(PlacementEvent.FailoverDecided.of(failover));
    }
    events.addAll(moves.progress(state, available, failingOver));
    probe.flush(); // what the rounds, moves and the leader check asked, one message per broker
    return events.isEmpty() ? Effect().none() : persist(events);
  }

  /** The shards that need a failover round, and those whose round has not ended (see FailoverRounds#unfinished). */
  private Set<ShardId> failingOver(ControlState state) {
    Set<ShardId> failingOver = new HashSet<>(moves.handedToFailover(state));
    failingOver.addAll(failovers.unfinished(state));
    // Only the shards that may need it are checked, not every shard every progress interval (with 10,000 idle
    // shards that scan was 17.5% of the Java time sampled on the singleton's host, 2026-12-07).
    for (ShardAssignment a : liveness.failoverCandidates(state)) {
      if (liveness.needsFailover(a)) {
        failingOver.add(a.id());
      }
    }
    for (ShardId id : leaders.suspected()) {
      ShardAssignment a = state.shards().get(id);
      if (a != null && leaders.notServing(a)) {
        failingOver.add(id);
      }
    }
    return failingOver;
  }

  /** The leader check asks every leader now rather than an interval after it last did (see {@link LeaderCheck}). */
  private void askEveryLeader() {
    leaders.askAllAtOnce();
    context.getSelf().tell(ProgressTick.INSTANCE);
  }

  private void refreshLiveness(ControlState state) {
    liveness.refresh(state, BrokerLiveness.members(cluster.state()));
  }
}
