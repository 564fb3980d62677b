package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.ControlState.BrokerRecord;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.PlacementEvent.BrokerDraining;
import io.felix.broker.control.PlacementEvent.BrokerUndrained;
import io.felix.broker.control.PlacementEvent.BrokerJoined;
import io.felix.broker.control.PlacementEvent.BrokerRemoved;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.PlacementPaused;
import io.felix.broker.control.PlacementEvent.PlacementResumed;
import io.felix.broker.control.PlacementEvent.StreamConfigChanged;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import io.felix.broker.control.PlacementEvent.StreamShardsAdded;
import io.felix.broker.control.PlacementEvent.StreamDeleted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.ShardsPlaced;
import io.felix.placement.Action;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.Plan;
import io.felix.placement.Planner;
import io.felix.placement.Step;
import io.felix.broker.assignment.InternalStreams;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Decide: each operator command, given the current state, yields the events to persist and the reply, or a
 * refusal that changes nothing. No I/O and no clock (the time is passed in), like Kafka's controller managers:
 * state changes only when the events are applied.
 */
public final class PlacementDecisions {

  /** Stream names: safe in URLs, file names and the replication-status line ({@code name:0=4,...}). */
  public static final Pattern STREAM_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

  /** Events to persist (possibly none) and the answer to give once they are. */
  public record Decision(List<PlacementEvent> events, ControlReply reply) {
    static Decision refuse(ControlReply reply) {
      return new Decision(List.of(), reply);
    }
  }

  private final ControlSettings settings;
  /** A plan and what it was planned from. */
  private record Planned(ControlState state, Set<Integer> available, Plan plan) {}

  /** The last pass's plan (see {@link #planOf}); null before the first. */
  private Planned last;

  public PlacementDecisions(ControlSettings settings) {
    this.settings = settings;
  }

  public List<PlacementEvent> register(ControlState state, PlacementController.RegisterBroker r) {
    BrokerRecord known = state.brokers().get(r.brokerId());
    if (known != null && known.zone().equals(r.zone()) && known.maxShards() == r.maxShards()
        && known.endpoint().equals(r.endpoint()) && known.replicaCapacity() == r.replicaCapacity()) {
      return List.of();
    }
    return List.of(new BrokerJoined(r.brokerId(), r.zone(), r.maxShards(), r.endpoint(), r.replicaCapacity()));
  }

  public Decision createStream(ControlState state, Set<Integer> available, String name, int shards, int rf) {
    return createStream(state, available, name, shards, rf, StreamConfig.DEFAULTS);
  }

  /** Creates a stream with its own settings ({@code config}, already valid: {@link StreamConfig} checks itself). */
  public Decision createStream(ControlState state, Set<Integer> available, String name, int shards, int rf,
      StreamConfig config) {
    StreamLimits limits = settings.streamLimits();
    if (name != null && name.length() > limits.maxStreamNameLength()) {
      return Decision.refuse(ControlReply.invalid("name: " + name.length() + " characters exceed the limit of "
          + limits.maxStreamNameLength() + " (felix.control.max-stream-name-length)"));
    }
    if (name == null || !(STREAM_NAME.matcher(name).matches() || InternalStreams.ALL.contains(name))) {
      return Decision.refuse(ControlReply.invalid("name: must be letters, digits, '.', '_' or '-', starting with a"
          + " letter or digit, got " + (name == null ? "nothing" : "'" + name + "'")));
    }
    if (shards < 1 || shards > limits.maxShardsPerStream()) {
      return Decision.refuse(ControlReply.invalid("shards: must be 1.." + limits.maxShardsPerStream()
          + " (felix.control.max-shards-per-stream), got " + shards));
    }
    long existing = state.streams().values().stream().mapToLong(ControlState.StreamRecord::shards).sum();
    if (existing + shards > limits.maxShards()) {
      return Decision.refuse(ControlReply.invalid("shards: the cluster holds " + existing + " shards; " + shards
          + " more would exceed the limit of " + limits.maxShards() + " (felix.control.max-shards)"));
    }
    if (rf < 1) {
      return Decision.refuse(ControlReply.invalid("replication_factor: must be >= 1, got " + rf));
    }
    if (state.streams().containsKey(name)) {
      return Decision.refuse(ControlReply.conflict("stream '" + name + "' already exists"));
    }
    long eligible = state.brokers().values().stream()
        .filter(b -> available.contains(b.id()) && !b.draining()).count();
    if (rf > eligible) {
      return Decision.refuse(ControlReply.invalid("replication_factor: " + rf + " exceeds the " + eligible
          + " live brokers that can take replicas"));
    }
    ClusterSnapshot snapshot = PlacementSnapshots.withNewStream(
        PlacementSnapshots.of(state, available, settings), name, shards, rf);
    Plan plan = Planner.plan(snapshot);
    List<ShardPlaced> placed = placedOf(plan, name, 0);
    Optional<String> overCapacity = ReplicaCapacityCheck.refusal(state, placed);
    if (overCapacity.isPresent()) {
      return Decision.refuse(ControlReply.invalid("shards: " + overCapacity.get()));
    }
    return new Decision(List.of(new StreamCreated(name, shards, rf, UUID.randomUUID(), config, placed)),
        ControlReply.done("stream '" + name + "' created with " + shards + " shards"));
  }

  /**
   * PATCH: the settings {@code change} sets replace the stream's, and a larger {@code shards} (null: unchanged) adds
   * shards placed by the same rules as a new stream's; a change that changes nothing persists nothing.
   */
  public Decision changeStream(ControlState state, Set<Integer> available, String name, StreamConfig change,
      Integer shards) {
    StreamRecord stream = state.streams().get(name);
    if (stream == null) {
      return Decision.refuse(ControlReply.notFound("stream '" + name + "' does not exist"));
    }
    StreamLimits limits = settings.streamLimits();
    if (shards != null && (shards < stream.shards() || shards > limits.maxShardsPerStream())) {
      return Decision.refuse(ControlReply.invalid("shards: can only grow, up to " + limits.maxShardsPerStream()
          + " (felix.control.max-shards-per-stream): the stream has " + stream.shards() + ", got " + shards));
    }
    long existing = state.streams().values().stream().mapToLong(ControlState.StreamRecord::shards).sum();
    if (shards != null && existing - stream.shards() + shards > limits.maxShards()) {
      return Decision.refuse(ControlReply.invalid("shards: the cluster holds " + existing + " shards; "
          + (shards - stream.shards()) + " more would exceed the limit of " + limits.maxShards()
          + " (felix.control.max-shards)"));
    }
    List<PlacementEvent> events = new ArrayList<>();
    StreamConfig changed = stream.config().changedBy(change);
    if (!changed.equals(stream.config())) {
      events.add(new StreamConfigChanged(name, changed));
    }
    if (shards != null && shards > stream.shards()) {
      Plan plan = Planner.plan(PlacementSnapshots.withShardCount(PlacementSnapshots.of(state, available, settings),
          name, shards));
      List<ShardPlaced> placed = placedOf(plan, name, stream.shards());
      Optional<String> overCapacity = ReplicaCapacityCheck.refusal(state, placed);
      if (overCapacity.isPresent()) {
        return Decision.refuse(ControlReply.invalid("shards: " + overCapacity.get()));
      }
      events.add(new StreamShardsAdded(name, shards));
      events.add(new ShardsPlaced(placed));
    }
    if (events.isEmpty()) {
      return Decision.refuse(ControlReply.done("stream '" + name + "' already has these settings"));
    }
    return new Decision(events, ControlReply.done("stream '" + name + "' changed: " + changed
        + (shards != null && shards > stream.shards() ? ", " + shards + " shards" : "")));
  }

  public Decision deleteStream(ControlState state, String name) {
    if (!state.streams().containsKey(name)) {
      return Decision.refuse(ControlReply.notFound("stream '" + name + "' does not exist"));
    }
    return new Decision(List.of(new StreamDeleted(name)), ControlReply.done("stream '" + name + "' deleted"));
  }

  public Decision drain(ControlState state, int brokerId) {
    BrokerRecord broker = state.brokers().get(brokerId);
    if (broker == null) {
      return Decision.refuse(ControlReply.notFound("broker " + brokerId + " is not known"));
    }
    if (broker.draining()) {
      return Decision.refuse(ControlReply.done("broker " + brokerId + " is already draining"));
    }
    return new Decision(List.of(new BrokerDraining(brokerId)), ControlReply.done("broker " + brokerId + " is draining"));
  }

  public Decision undrain(ControlState state, int brokerId) {
    BrokerRecord broker = state.brokers().get(brokerId);
    if (broker == null) {
      return Decision.refuse(ControlReply.notFound("broker " + brokerId + " is not known"));
    }
    if (!broker.draining()) {
      return Decision.refuse(ControlReply.done("broker " + brokerId + " is not draining"));
    }
    return new Decision(List.of(new BrokerUndrained(brokerId)),
        ControlReply.done("broker " + brokerId + " is no longer draining: it takes shards again"));
  }

  public Decision remove(ControlState state, int brokerId) {
    if (!state.brokers().containsKey(brokerId)) {
      return Decision.refuse(ControlReply.notFound("broker " + brokerId + " is not known"));
    }
    long held = state.replicasOn(brokerId);
    if (held > 0) {
      return Decision.refuse(ControlReply.conflict("broker " + brokerId + " still holds " + held
          + " shard replicas; drain it first (POST /v1/brokers/" + brokerId + "/drain)"));
    }
    return new Decision(List.of(new BrokerRemoved(brokerId)), ControlReply.done("broker " + brokerId + " removed"));
  }

  public Decision pause(ControlState state, long nowMillis) {
    return state.paused() ? Decision.refuse(ControlReply.done("placement is already paused"))
        : new Decision(List.of(new PlacementPaused(nowMillis)), ControlReply.done("placement paused"));
  }

  public Decision resume(ControlState state, long nowMillis) {
    return !state.paused() ? Decision.refuse(ControlReply.done("placement is not paused"))
        : new Decision(List.of(new PlacementResumed(nowMillis)), ControlReply.done("placement resumed"));
  }

  /** A manual leader move of {@code stream/shard} to broker {@code to}; allowed while paused. */
  public Decision startMove(ControlState state, Set<Integer> available, String stream, int shard, int to,
      long nowMillis) {
    if (stream == null || !state.streams().containsKey(stream)) {
      return Decision.refuse(ControlReply.notFound("stream '" + stream + "' does not exist"));
    }
    int shards = state.streams().get(stream).shards();
    if (shard < 0 || shard >= shards) {
      return Decision.refuse(ControlReply.invalid("shard: stream '" + stream + "' has shards 0.." + (shards - 1)
          + ", got " + shard));
    }
    BrokerRecord target = state.brokers().get(to);
    if (target == null) {
      return Decision.refuse(ControlReply.notFound("to: broker " + to + " is not known"));
    }
    ShardId id = new ShardId(stream, shard);
    ShardAssignment current = state.shards().get(id);
    if (current == null || current.leader() == ShardAssignment.NO_LEADER) {
      return Decision.refuse(ControlReply.conflict(id + " has no leader to move"));
    }
    if (current.leader() == to) {
      return Decision.refuse(ControlReply.conflict("broker " + to + " already leads " + id));
    }
    if (state.moves().containsKey(id)) {
      return Decision.refuse(ControlReply.conflict(id + " is already moving (move " + state.moves().get(id).moveId() + ")"));
    }
    if (!available.contains(to) || target.draining()) {
      return Decision.refuse(ControlReply.conflict("broker " + to + " cannot take " + id + ": it is "
          + (target.draining() ? "draining" : "not reachable")));
    }
    if (!available.contains(current.leader())) {
      return Decision.refuse(ControlReply.conflict(id + ": its leader " + current.leader()
          + " is not reachable; failover will choose a new one"));
    }
    if (state.moves().size() >= settings.maxConcurrentMoves()) {
      return Decision.refuse(ControlReply.conflict("max_concurrent_moves (" + settings.maxConcurrentMoves()
          + ") moves are already in flight"));
    }
    if (settings.maxMovesPerBroker() > 0) {
      for (int b : List.of(current.leader(), to)) {
        long busy = state.moves().values().stream().filter(m -> m.from() == b || m.to() == b).count();
        if (busy >= settings.maxMovesPerBroker()) {
          return Decision.refuse(ControlReply.conflict("max_moves_per_broker (" + settings.maxMovesPerBroker()
              + ") moves already involve broker " + b));
        }
      }
    }
    boolean staged = !current.replicas().contains(to);
    if (staged && target.maxShards() > 0 && state.replicasOn(to) >= target.maxShards()) {
      return Decision.refuse(ControlReply.conflict("broker " + to + " is at its max_shards (" + target.maxShards() + ")"));
    }
    long moveId = state.nextMoveId();
    return new Decision(
        List.of(new MoveStarted(moveId, id, current.leader(), to, staged, "manual", nowMillis)),
        ControlReply.done("move " + moveId + " of " + id + " from broker " + current.leader() + " to " + to + " started"));
  }

  /** One placement pass over the live cluster: new shards placed, planned moves started. */
  public record Pass(List<PlacementEvent> events, Plan plan) {}

  /**
   * @param failingOver shards that need a failover round or have one in progress: no move starts for them, nor
   *     for a shard whose leader is not reachable (the failover decides its leader; a move begun meanwhile would
   *     fence a broker that is not serving, and hold the shard until the move gives up)
   */
  public Pass pass(ControlState state, Set<Integer> available, Set<ShardId> failingOver, long nowMillis) {
    Plan plan = planOf(state, available);
    List<PlacementEvent> events = new ArrayList<>();
    List<ShardPlaced> placed = new ArrayList<>();
    long moveId = state.nextMoveId();
    for (Step step : plan.steps()) {
      if (step.action() == Action.PLACE) {
        placed.add(PlacementSnapshots.placed(step));
      } else if (step.action() == Action.MOVE && mayStartMove(state, available, failingOver,
          new ShardId(step.group(), step.shard()))) {
        events.add(PlacementSnapshots.moveStarted(step, state, moveId++, nowMillis));
      }
    }
    if (!placed.isEmpty()) {
      events.add(0, new ShardsPlaced(placed));
    }
    return new Pass(events, plan);
  }

  /**
   * The planner's plan for the state and the available brokers. The planner is a pure function of them, so the
   * plan of the last pass is reused while both are the same (the state is an immutable fold of the events): an idle
   * cluster's singleton planned every replica again each placement interval for nothing (with 10,000 shards, 19% of
   * the Java time sampled on its host, 2026-12-07). Which of its moves may start still depends on the shards failing
   * over, so that is decided again on every pass.
   */
  private Plan planOf(ControlState state, Set<Integer> available) {
    if (last != null && last.state() == state && last.available().equals(available)) {
      return last.plan();
    }
    try {
      last = new Planned(state, Set.copyOf(available), Planner.plan(PlacementSnapshots.of(state, available, settings)));
    } catch (InvalidLayoutException e) {
      throw new IllegalStateException("the placement state is not a valid layout: " + e.getMessage(), e);
    }
    return last.plan();
  }

  /** The plan's placements of the stream's shards numbered {@code from} and up (the new ones). */
  private static List<ShardPlaced> placedOf(Plan plan, String stream, int from) {
    List<ShardPlaced> placed = new ArrayList<>();
    for (Step step : plan.steps()) {
      if (step.action() == Action.PLACE && step.group().equals(stream) && step.shard() >= from) {
        placed.add(PlacementSnapshots.placed(step));
      }
    }
    return placed;
  }

  private static boolean mayStartMove(ControlState state, Set<Integer> available, Set<ShardId> failingOver,
      ShardId id) {
    ShardAssignment current = state.shards().get(id);
    return !state.moves().containsKey(id) && !failingOver.contains(id)
        && current != null && available.contains(current.leader());
  }
}
