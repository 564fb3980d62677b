package io.felix.placement.bench;

import io.felix.placement.Assignment;
import io.felix.placement.Broker;
import io.felix.placement.BrokerState;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.LeaderCounts;
import io.felix.placement.Plan;
import io.felix.placement.PlacementSettings;
import io.felix.placement.Planner;
import io.felix.placement.SimulationResult;
import io.felix.placement.Simulator;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;

/**
 * Times the planner on big clusters: 10,000 shards on 100 brokers and 100,000 shards on 500 brokers (streams of 100
 * shards, RF 3). The skewed layout gives each stream's leaders to a band of a tenth of the brokers at a random
 * offset (seeded), so the cluster totals are roughly even but every stream is lopsided: the case the stream tally
 * fixes. Printed per size:
 *
 * <ul>
 *   <li>placing every shard of an empty cluster (one pass, all placements), without zones and in three zones;
 *   <li>one pass over the skewed layout with the default settings: building every tally from the snapshot and
 *       planning the one allowed move, which is what the control plane pays each time it plans;
 *   <li>one pass with no move limit, which plans every move to convergence in that single pass;
 *   <li>a simulation to convergence with one move per pass (the default), timing every pass on the layout kept
 *       up to date in place;
 *   <li>the moves made against a lower bound: the larger of the leaders above their group's ceiling and the leaders
 *       above the cluster share, each of which needs one move of its own.
 * </ul>
 *
 * Run: {@code java -cp placement/target/felix-placement.jar io.felix.placement.bench.PlacementBenchmark}.
 * Times are wall-clock on whatever else the machine is doing, with the measuring thread's CPU time in brackets
 * (the planner is single-threaded, so CPU time is what it costs when other processes share the cores); each pass
 * figure is the best of five runs after five warm-up runs.
 */
public final class PlacementBenchmark {

  private static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();

  private PlacementBenchmark() {}

  public static void main(String[] args) {
    System.out.printf("Felix placement benchmark (Java %s, %d processors)%n", Runtime.version(),
        Runtime.getRuntime().availableProcessors());
    run(100, 100, 100);
    run(500, 1_000, 100);
  }

  private static void run(int brokers, int streams, int shardsPerStream) {
    ClusterSnapshot skewed = skewedLayout(brokers, streams, shardsPerStream, 3, 7);
    int shards = streams * shardsPerStream;
    System.out.printf("%n== %,d shards (%,d streams x %d, RF 3) on %d brokers ==%n", shards, streams,
        shardsPerStream, brokers);

    ClusterSnapshot empty = skewed.withAssignments(List.of());
    Timing place = bestOf(5, () -> Planner.plan(empty));
    Plan placement = Planner.plan(empty);
    LeaderCounts placed = LeaderCounts.of(placement.applyTo(empty));
    System.out.printf("place every shard of an empty cluster (one pass): %s, %,d placements, worst stream"
        + " spread %d, totals spread %d%n", place,
        placement.steps().stream().filter(s -> s.action() == io.felix.placement.Action.PLACE).count(),
        worstSpread(placed),
        placed.totalSpread());

    LeaderCounts before = LeaderCounts.of(skewed);
    long[] bound = lowerBound(skewed, before);
    System.out.printf("skewed layout: worst stream spread %d, totals spread %d; lower bound on moves %,d"
        + " (%,d leaders above their stream's ceiling, %,d above the cluster share)%n", worstSpread(before),
        before.totalSpread(), Math.max(bound[0], bound[1]), bound[0], bound[1]);

    Timing onePass = bestOf(5, () -> Planner.plan(skewed));
    System.out.printf("one pass, default settings (tallies from the snapshot + 1 move): %s%n", onePass);

    ClusterSnapshot unlimited = skewed.withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(Integer.MAX_VALUE));
    Timing allMoves = bestOf(5, () -> Planner.plan(unlimited));
    Plan everything = Planner.plan(unlimited);
    LeaderCounts after = LeaderCounts.of(everything.applyTo(unlimited));
    System.out.printf("one pass, no move limit (plans every stream move; cluster moves wait for a pass with no"
        + " stream move): %s, %,d moves (%.3fx the bound), worst stream spread after %d, totals spread %d%n",
        allMoves, everything.moves().size(),
        everything.moves().size() / (double) Math.max(bound[0], bound[1]), worstSpread(after), after.totalSpread());

    Timing[] timing = new Timing[1];
    SimulationResult all = simulate(unlimited, timing);
    System.out.printf("simulate to convergence, no move limit: %s for %d passes, %,d moves (%.3fx the bound),"
        + " %,d shards moved twice, worst stream spread %d, totals spread %d%n", timing[0],
        all.passes(), all.moveCount(), all.moveCount() / (double) Math.max(bound[0], bound[1]),
        all.shardsMovedMoreThanOnce(), worstSpread(all.leaders()), all.leaders().totalSpread());

    SimulationResult result = simulate(skewed, timing);
    System.out.printf("simulate to convergence, 1 move per pass: %s for %,d passes (%.1f us cpu per pass"
        + " incl. building the layout once), %,d moves (%.3fx the bound), %,d shards moved twice, converged %s,"
        + " worst stream spread %d, totals spread %d%n", timing[0], result.passes(),
        timing[0].cpuNanos() / 1e3 / result.passes(), result.moveCount(),
        result.moveCount() / (double) Math.max(bound[0], bound[1]), result.shardsMovedMoreThanOnce(),
        result.converged(), worstSpread(result.leaders()), result.leaders().totalSpread());

    // The same layout with brokers in three zones (id mod 3): rebalance moves may not lower a shard's zone count.
    List<Broker> zonedBrokers = new ArrayList<>();
    for (Broker b : skewed.brokers()) {
      zonedBrokers.add(new Broker(b.id(), "zone-" + b.id() % 3, null, BrokerState.LIVE));
    }
    ClusterSnapshot zoned = skewed.withBrokers(zonedBrokers);
    ClusterSnapshot zonedEmpty = zoned.withAssignments(List.of());
    Timing zonedPlace = bestOf(5, () -> Planner.plan(zonedEmpty));
    Timing zonedPass = bestOf(5, () -> Planner.plan(zoned));
    SimulationResult zonedResult = simulate(zoned, timing);
    long twoApart = zonedResult.leaders().groups().keySet().stream()
        .filter(g -> zonedResult.leaders().spread(g) >= 2).count();
    System.out.printf("with 3 zones: place every shard of an empty cluster %s; one pass %s; simulate, 1 move per"
        + " pass: %s for %,d passes, %,d moves (%.3fx the bound), %,d shards moved twice, %d of %d streams end two"
        + " apart, totals spread %d%n",
        zonedPlace, zonedPass, timing[0], zonedResult.passes(), zonedResult.moveCount(),
        zonedResult.moveCount() / (double) Math.max(bound[0], bound[1]), zonedResult.shardsMovedMoreThanOnce(),
        twoApart, streams, zonedResult.leaders().totalSpread());
  }

  /** Each stream's leaders go to a band of a tenth of the brokers; followers are random other brokers. */
  static ClusterSnapshot skewedLayout(int brokerCount, int streams, int shardsPerStream, int rf, long seed) {
    Random random = new Random(seed);
    List<Broker> brokers = new ArrayList<>();
    for (int b = 0; b < brokerCount; b++) {
      brokers.add(Broker.live(b));
    }
    int band = Math.max(1, brokerCount / 10);
    List<Group> groups = new ArrayList<>();
    List<Assignment> assignments = new ArrayList<>();
    for (int g = 0; g < streams; g++) {
      String name = String.format("stream-%05d", g);
      groups.add(Group.stream(name, shardsPerStream, rf));
      int offset = random.nextInt(brokerCount);
      for (int s = 0; s < shardsPerStream; s++) {
        int leader = (offset + random.nextInt(band)) % brokerCount;
        List<Integer> replicas = new ArrayList<>(List.of(leader));
        while (replicas.size() < rf) {
          int b = random.nextInt(brokerCount);
          if (!replicas.contains(b)) {
            replicas.add(b);
          }
        }
        assignments.add(new Assignment(name, s, leader, replicas));
      }
    }
    return new ClusterSnapshot(brokers, groups, assignments, List.of(), PlacementSettings.DEFAULT);
  }

  /** {leaders above their group's ceiling, leaders above the cluster share}: each needs a move of its own. */
  static long[] lowerBound(ClusterSnapshot snapshot, LeaderCounts counts) {
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
    return new long[] {aboveCeiling, aboveShare};
  }

  static int worstSpread(LeaderCounts counts) {
    int worst = 0;
    for (Map.Entry<String, SortedMap<Integer, Integer>> e : counts.groups().entrySet()) {
      worst = Math.max(worst, counts.spread(e.getKey()));
    }
    return worst;
  }

  /** Wall and CPU time of one measurement. */
  private record Timing(long wallNanos, long cpuNanos) {
    @Override
    public String toString() {
      return String.format("%8.1f ms (cpu %.1f ms)", wallNanos / 1e6, cpuNanos / 1e6);
    }
  }

  /**
   * The run with the best wall time out of {@code runs}, after as many warm-up runs: one was not enough for the JIT
   * to finish compiling the placement loops on the 10,000-shard layout, which is measured first.
   */
  private static Timing bestOf(int runs, Runnable work) {
    for (int i = 0; i < runs; i++) {
      work.run();
    }
    Timing best = null;
    for (int i = 0; i < runs; i++) {
      Timing timing = time(work);
      if (best == null || timing.wallNanos() < best.wallNanos()) {
        best = timing;
      }
    }
    return best;
  }

  private static Timing time(Runnable work) {
    long cpu = CPU.getCurrentThreadCpuTime();
    long start = System.nanoTime();
    work.run();
    return new Timing(System.nanoTime() - start, CPU.getCurrentThreadCpuTime() - cpu);
  }

  private static SimulationResult simulate(ClusterSnapshot snapshot, Timing[] timing) {
    SimulationResult[] result = new SimulationResult[1];
    timing[0] = time(() -> result[0] = Simulator.run(snapshot, 1_000_000));
    return result[0];
  }
}
