package io.felix.placement;

import static io.felix.placement.Layouts.counts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Placing a new stream beside brokers that already lead unevenly. */
class NewStreamPlacementTest {

  @Test
  void newStreamBesideBrokersAtSixSixZeroIsPlacedFourFourFourAndNeverMoves() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(3).stream("old", 3, 6, 6, 0).newStream("perf-quorum", 12, 3)
        .snapshot();

    Plan first = Planner.plan(snapshot);
    assertEquals(12, first.steps().stream().filter(s -> s.action() == Action.PLACE).count());
    assertEquals(List.of(4, 4, 4), counts(LeaderCounts.of(first.applyTo(snapshot)), "perf-quorum"));

    SimulationResult result = Simulator.run(snapshot);
    assertEquals(List.of(4, 4, 4), counts(result, "perf-quorum"));
    assertEquals(0, Layouts.movesOf(result, "perf-quorum"), "the new stream never moves");
    assertEquals(List.of(4, 4, 4), counts(result, "old"));
  }

  @Test
  void newStreamBesideTwoBrokersAtTheirShareIsStillPlacedEvenly() {
    SimulationResult result = Simulator.run(twoBrokersAtShare(Strategy.STREAM_AWARE));

    assertEquals(List.of(4, 4, 4), counts(result, "perf-quorum"));
    assertEquals(0, Layouts.movesOf(result, "perf-quorum"));
  }

  @Test
  void newStreamUnderClusterShareLandsAllOnTheBrokerBelowItsShare() {
    ClusterSnapshot snapshot = twoBrokersAtShare(Strategy.CLUSTER_SHARE);

    Plan plan = Planner.plan(snapshot);

    // The skew of docs/placement.md's first worked example: brokers 0 and 1 already lead 12 = ceil(36 / 3) each.
    assertEquals(List.of(0, 0, 12), counts(LeaderCounts.of(plan.applyTo(snapshot)), "perf-quorum"));
    SimulationResult result = Simulator.run(snapshot);
    assertTrue(result.converged());
    assertEquals(List.of(12, 12, 12), Layouts.totals(result), "the totals look level");
    assertEquals(List.of(0, 0, 12), counts(result, "perf-quorum"), "and nothing ever fixes the stream");
  }

  @Test
  void freshStreamOnEmptyBrokersIsPlacedLevelWithFollowersSpread() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(5).newStream("fresh", 10, 3).snapshot();

    Plan plan = Planner.plan(snapshot);
    ClusterSnapshot after = plan.applyTo(snapshot);

    assertEquals(List.of(2, 2, 2, 2, 2), counts(LeaderCounts.of(after), "fresh"));
    // 30 replicas on 5 brokers. Leaders are chosen for leadership first, so a leader can land on a broker the
    // earlier shards already gave followers; followers then go to the fewest first, which keeps it within two.
    assertEquals(List.of(5, 7, 6, 6, 6), List.copyOf(new java.util.TreeMap<>(Layouts.hosted(after)).values()));
    assertTrue(after.assignments().stream().allMatch(a -> a.replicas().size() == 3));
    assertTrue(Planner.plan(after).isEmpty(), "a level placement needs no moves");
  }

  private static ClusterSnapshot twoBrokersAtShare(Strategy strategy) {
    return Layouts.liveBrokers(3).stream("old", 3, 12, 12, 0).newStream("perf-quorum", 12, 3)
        .settings(PlacementSettings.DEFAULT.withStrategy(strategy)).snapshot();
  }
}
