package io.felix.placement;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The outcome of {@link Simulator#run}: every step with its pass, the final layout (every move finished), the
 * leaders per broker in it, the number of passes run and whether the last pass planned nothing.
 */
public record SimulationResult(
    List<SimulatedStep> steps, ClusterSnapshot finalSnapshot, LeaderCounts leaders, int passes, boolean converged) {

  public SimulationResult {
    steps = List.copyOf(steps);
  }

  public long moveCount() {
    return steps.stream().filter(s -> s.step().action() == Action.MOVE).count();
  }

  /** Shards that moved more than once over the whole simulation (a leadership transfer counts as a move). */
  public long shardsMovedMoreThanOnce() {
    Map<ShardRef, Integer> moves = new HashMap<>();
    for (SimulatedStep s : steps) {
      if (s.step().action() == Action.MOVE) {
        moves.merge(new ShardRef(s.step().group(), s.step().shard()), 1, Integer::sum);
      }
    }
    return moves.values().stream().filter(count -> count > 1).count();
  }
}
