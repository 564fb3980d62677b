package io.felix.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Two planners given the same snapshot, in any list order, produce the identical plan. */
class DeterminismTest {

  @Test
  void shuffledSnapshotGivesTheIdenticalPlanAndSimulation() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(5)
        .stream("b-stream", 2, 9, 0, 3, 0, 1)
        .stream("a-stream", 3, 0, 0, 0, 4, 4)
        .cache("cache", 2, 2, 2, 2, 2, 2)
        .newStream("new", 7, 2)
        .broker(new Broker(5, null, null, BrokerState.LIVE))
        .settings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(4))
        .snapshot();
    Plan expected = Planner.plan(snapshot);
    SimulationResult expectedRun = Simulator.run(snapshot);
    assertFalse(expected.moves().isEmpty());

    Random random = new Random(42);
    for (int round = 0; round < 20; round++) {
      ClusterSnapshot shuffled = new ClusterSnapshot(shuffle(snapshot.brokers(), random),
          shuffle(snapshot.groups(), random), shuffle(snapshot.assignments(), random), List.of(),
          snapshot.settings());
      assertEquals(expected, Planner.plan(shuffled), "round " + round);
      assertEquals(expectedRun.steps(), Simulator.run(shuffled).steps(), "round " + round);
    }
  }

  private static <T> List<T> shuffle(List<T> list, Random random) {
    List<T> copy = new ArrayList<>(list);
    Collections.shuffle(copy, random);
    return copy;
  }
}
