package io.felix.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one pass decided, in order: promotions and placements (in shard order, as each shard needing a leader comes
 * up), then moves (drain, stream, cluster).
 *
 * @param leaderless shards whose leader is gone and that have no live in-sync replica to promote: they stay down
 *     until a replica comes back, and the control plane should say so
 */
public record Plan(List<Step> steps, List<ShardRef> leaderless) {

  public Plan {
    steps = List.copyOf(steps);
    leaderless = List.copyOf(leaderless);
  }

  public boolean isEmpty() {
    return steps.isEmpty();
  }

  public List<Step> moves() {
    return steps.stream().filter(step -> step.action() == Action.MOVE).toList();
  }

  /**
   * The snapshot once the snapshot's moves in flight and this plan's steps have all finished: what the next pass of
   * a simulation starts from. The result has no moves in flight; in-sync sets are reset to the replica sets.
   */
  public ClusterSnapshot applyTo(ClusterSnapshot snapshot) {
    Map<ShardRef, Assignment> layout = new TreeMap<>();
    for (Assignment assignment : snapshot.assignments()) {
      layout.put(new ShardRef(assignment.group(), assignment.shard()), assignment);
    }
    for (MoveInFlight move : snapshot.movesInFlight()) {
      ShardRef ref = new ShardRef(move.group(), move.shard());
      layout.put(ref, finish(layout.get(ref), move.from(), move.to()));
    }
    for (Step step : steps) {
      layout.put(new ShardRef(step.group(), step.shard()),
          new Assignment(step.group(), step.shard(), step.leader(), step.replicas()));
    }
    return new ClusterSnapshot(snapshot.brokers(), snapshot.groups(), new ArrayList<>(layout.values()), List.of(),
        snapshot.settings());
  }

  /** A finished move: a leadership transfer when {@code to} held a replica, else {@code to} replaces {@code from}. */
  static Assignment finish(Assignment assignment, int from, int to) {
    List<Integer> replicas = new ArrayList<>(assignment.replicas());
    int leader = assignment.leader();
    if (replicas.contains(to)) {
      leader = to;
    } else {
      replicas.set(replicas.indexOf(from), to);
      if (leader == from) {
        leader = to;
      }
    }
    return new Assignment(assignment.group(), assignment.shard(), leader, replicas);
  }
}
