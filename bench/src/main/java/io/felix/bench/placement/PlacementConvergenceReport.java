package io.felix.bench.placement;

import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.LeaderCounts;
import io.felix.placement.PlacementSettings;
import io.felix.placement.SimulationResult;
import io.felix.placement.Simulator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;
import java.util.SortedMap;

/**
 * What the planner converges to on the layouts of {@link PlacementPassBenchmark} (10,000 shards on 100 brokers,
 * 100,000 on 500, streams of 100 shards, RF 3): a simulation to convergence with no move limit and with the default
 * one move per pass, without and with three zones, printing the moves made against a lower bound (the larger of the
 * leaders above their stream's ceiling and the leaders above the cluster share, each needing a move of its own),
 * the shards moved twice and the spreads left, with the wall and CPU time of each simulation (one run each: the
 * per-pass cost is what {@link PlacementPassBenchmark} measures under JMH).
 *
 * <p>Run: {@code java -cp bench/target/felix-bench.jar io.felix.bench.placement.PlacementConvergenceReport}.
 */
public final class PlacementConvergenceReport {

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private PlacementConvergenceReport() {}

  public static void main(String[] args) {
    System.out.printf("Felix placement convergence (Java %s, %d processors)%n", Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    report(100, 100);
    report(500, 1_000);
  }

  private static void report(int brokers, int streams) {
    ClusterSnapshot skewed = SkewedLayout.of(brokers, streams, 100, 3, 7);
    System.out.printf("%n== %,d shards (%,d streams x 100, RF 3) on %d brokers ==%n", streams * 100, streams, brokers);
    LeaderCounts before = LeaderCounts.of(skewed);
    long bound = lowerBound(skewed, before);
    System.out.printf("skewed layout: worst stream spread %d, totals spread %d; lower bound on moves %,d%n",
        worstSpread(before), before.totalSpread(), bound);
    simulate("no move limit", skewed.withSettings(
        PlacementSettings.DEFAULT.withMaxConcurrentMoves(Integer.MAX_VALUE)), bound);
    simulate("1 move per pass", skewed, bound);
    simulate("3 zones, 1 move per pass", SkewedLayout.inThreeZones(skewed), bound);
  }

  private static void simulate(String name, ClusterSnapshot snapshot, long bound) {
    long cpu = CPU.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    SimulationResult result = Simulator.run(snapshot, 1_000_000);
    double wallMs = (System.nanoTime() - start) / 1e6;
    double cpuMs = (CPU.getCurrentThreadCpuTime() - cpu) / 1e6;
    LeaderCounts after = result.leaders();
    long twoApart = after.groups().keySet().stream().filter(g -> after.spread(g) >= 2).count();
    System.out.printf("simulate to convergence, %s: %.1f ms (cpu %.1f ms) for %,d passes, %,d moves (%.3fx the"
        + " bound), %,d shards moved twice, converged %s, worst stream spread %d (%d streams two apart), totals"
        + " spread %d%n", name, wallMs, cpuMs, result.passes(), result.moveCount(),
        result.moveCount() / (double) Math.max(1, bound), result.shardsMovedMoreThanOnce(), result.converged(),
        worstSpread(after), twoApart, after.totalSpread());
  }

  /** The larger of the leaders above their group's ceiling and the leaders above the cluster share. */
  private static long lowerBound(ClusterSnapshot snapshot, LeaderCounts counts) {
    int nodes = counts.total().size();
    long aboveCeiling = 0;
    long totalShards = 0;
    for (Group group : snapshot.groups()) {
      int ceiling = (group.shards() + nodes - 1) / nodes;
      totalShards += group.shards();
      for (int count : counts.groups().get(group.name()).values()) {
        aboveCeiling += Math.max(0, count - ceiling);
      }
    }
    long share = (totalShards + nodes - 1) / nodes;
    long aboveShare = 0;
    for (int count : counts.total().values()) {
      aboveShare += Math.max(0, count - share);
    }
    return Math.max(aboveCeiling, aboveShare);
  }

  private static int worstSpread(LeaderCounts counts) {
    int worst = 0;
    for (Map.Entry<String, SortedMap<Integer, Integer>> e : counts.groups().entrySet()) {
      worst = Math.max(worst, counts.spread(e.getKey()));
    }
    return worst;
  }
}
