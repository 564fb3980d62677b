package io.felix.placement;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs placement pass after pass, taking every planned move as finished before the next pass, until a pass plans
 * nothing (converged) or the pass limit is reached. This is what {@code felix-placement simulate} and
 * {@code POST /v1/placement/simulate} answer with.
 *
 * <p>The layout is built once and updated in place between passes, so a pass costs what its decisions cost, not a
 * re-read of every shard: a simulation that moves one shard per pass over 100,000 shards stays fast.
 */
public final class Simulator {

  public static final int DEFAULT_MAX_PASSES = 100_000;

  private Simulator() {}

  public static SimulationResult run(ClusterSnapshot snapshot) {
    return run(snapshot, DEFAULT_MAX_PASSES);
  }

  public static SimulationResult run(ClusterSnapshot snapshot, int maxPasses) {
    if (maxPasses < 1) {
      throw new IllegalArgumentException("maxPasses must be >= 1, got " + maxPasses);
    }
    Layout layout = Layout.of(snapshot);
    List<SimulatedStep> steps = new ArrayList<>();
    int passes = 0;
    boolean converged = false;
    while (passes < maxPasses) {
      passes++;
      List<Step> planned = new Pass(layout).run().steps();
      for (Step step : planned) {
        steps.add(new SimulatedStep(passes, step));
      }
      layout.finishMoves();
      if (planned.isEmpty()) {
        converged = true;
        break;
      }
    }
    ClusterSnapshot last = layout.toSnapshot(snapshot);
    return new SimulationResult(steps, last, LeaderCounts.of(last), passes, converged);
  }
}
