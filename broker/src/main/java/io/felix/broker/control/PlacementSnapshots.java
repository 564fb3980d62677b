package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.BrokerRecord;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.placement.Action;
import io.felix.placement.Assignment;
import io.felix.placement.Broker;
import io.felix.placement.BrokerState;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.MoveInFlight;
import io.felix.placement.PlacementSettings;
import io.felix.placement.Plan;
import io.felix.placement.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The one place that speaks both languages: maps the singleton's state (plus which brokers are reachable) to
 * the placement library's {@link ClusterSnapshot}, and the library's {@link Step}s back to events.
 * Promotions are not taken from a plan: failover fences first and then asks the library to choose among the
 * replicas that answered (see {@link FailoverRounds}).
 */
public final class PlacementSnapshots {

  private PlacementSnapshots() {}

  public static PlacementSettings settings(ControlSettings settings, boolean paused) {
    return new PlacementSettings(settings.strategy(), settings.maxConcurrentMoves(),
        settings.maxMovesPerBroker() == 0 ? null : settings.maxMovesPerBroker(), paused);
  }

  /** The live cluster as the library sees it; brokers not in {@code available} are down. */
  public static ClusterSnapshot of(ControlState state, Set<Integer> available, ControlSettings settings) {
    return withLeaderless(state, available, settings, Set.of());
  }

  /**
   * The live cluster with the shards in {@code leaderless} shown without a leader and without their moves in flight:
   * the layout a failover round's promotions are chosen in (see {@link FailoverRounds}).
   */
  public static ClusterSnapshot withLeaderless(ControlState state, Set<Integer> available, ControlSettings settings,
      Set<ShardId> leaderless) {
    List<Broker> brokers = new ArrayList<>();
    for (BrokerRecord b : state.brokers().values()) {
      BrokerState brokerState = !available.contains(b.id()) ? BrokerState.DOWN
          : b.draining() ? BrokerState.DRAINING : BrokerState.LIVE;
      brokers.add(new Broker(b.id(), b.zone().isEmpty() ? null : b.zone(), b.maxShards() == 0 ? null : b.maxShards(),
          brokerState));
    }
    List<Group> groups = state.streams().values().stream()
        .map(s -> s.config().forCache() ? Group.cache(s.name(), s.shards(), s.replicationFactor())
            : Group.stream(s.name(), s.shards(), s.replicationFactor()))
        .toList();
    List<Assignment> assignments = state.shards().values().stream()
        .map(a -> new Assignment(a.id().stream(), a.id().shard(),
            leaderless.contains(a.id()) ? ShardAssignment.NO_LEADER : a.leader(), a.replicas()))
        .toList();
    List<MoveInFlight> moves = state.moves().values().stream()
        .filter(m -> !leaderless.contains(m.shard()))
        .map(m -> new MoveInFlight(m.shard().stream(), m.shard().shard(), m.from(), m.to()))
        .toList();
    return new ClusterSnapshot(brokers, groups, assignments, moves, settings(settings, state.paused()));
  }

  /** The snapshot with one more (new, unplaced) stream. */
  public static ClusterSnapshot withNewStream(ClusterSnapshot snapshot, String name, int shards, int replicationFactor) {
    List<Group> groups = new ArrayList<>(snapshot.groups());
    groups.add(Group.stream(name, shards, replicationFactor));
    return snapshot.withGroups(groups);
  }

  /** The snapshot with the stream's shard count raised to {@code shards} (the new ones unplaced). */
  public static ClusterSnapshot withShardCount(ClusterSnapshot snapshot, String name, int shards) {
    List<Group> groups = snapshot.groups().stream()
        .map(g -> g.name().equals(name) ? new Group(name, g.kind(), shards, g.replicationFactor()) : g).toList();
    return snapshot.withGroups(groups);
  }

  /** A new shard's first assignment: epoch 1. */
  public static ShardPlaced placed(Step step) {
    if (step.action() != Action.PLACE) {
      throw new IllegalArgumentException("not a placement: " + step);
    }
    return new ShardPlaced(new ShardId(step.group(), step.shard()), step.replicas(), step.leader(), 1);
  }

  /** A planned move; {@code staged} when the destination holds no replica yet. */
  public static MoveStarted moveStarted(Step step, ControlState state, long moveId, long nowMillis) {
    ShardId id = new ShardId(step.group(), step.shard());
    ShardAssignment current = state.shards().get(id);
    boolean staged = !current.replicas().contains(step.to());
    return new MoveStarted(moveId, id, step.from(), step.to(), staged, step.reason().wireName(), nowMillis);
  }

  /** The assignment a move ends with: {@code to} replaces {@code from}, or takes the lead when it held a replica. */
  public static ShardAssignment finished(ShardAssignment current, MoveRecord move, long epoch) {
    List<Integer> replicas = new ArrayList<>(current.replicas());
    int leader = current.leader();
    if (move.staged()) {
      replicas.set(replicas.indexOf(move.from()), move.to());
      if (leader == move.from()) {
        leader = move.to();
      }
    } else {
      leader = move.to();
    }
    return new ShardAssignment(current.id(), replicas, List.of(), leader, epoch, current.incarnation());
  }

  /** Text of a plan's steps for the admin API's last pass. */
  public static List<String> describe(Plan plan) {
    return plan.steps().stream().map(Step::toString).toList();
  }
}
