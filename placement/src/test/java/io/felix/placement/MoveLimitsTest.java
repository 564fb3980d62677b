package io.felix.placement;

import static io.felix.placement.Layouts.counts;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pause, the cluster-wide and per-broker move limits, and moves in flight. */
class MoveLimitsTest {

  private static Layouts skewed() {
    return Layouts.liveBrokers(3).stream("perf-quorum", 3, 1, 1, 10);
  }

  /** The layout with room for ten moves in the cluster but one move per broker. */
  private static ClusterSnapshot oneMovePerBroker(Layouts layout) {
    return layout.settings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(10).withMaxMovesPerBroker(1)).snapshot();
  }

  @Test
  void pausedPlansNoMovesButStillPlacesAndPromotes() {
    ClusterSnapshot snapshot = skewed()
        .newStream("fresh", 3, 2)
        .broker(new Broker(2, null, null, BrokerState.DOWN))
        .assignment(new Assignment("other", 0, 2, List.of(2, 0, 1)))
        .group(Group.stream("other", 1, 3))
        .settings(PlacementSettings.DEFAULT.withPaused(true))
        .snapshot();

    Plan plan = Planner.plan(snapshot);

    assertTrue(plan.moves().isEmpty());
    // Broker 2 is down: its ten perf-quorum leaders and other/0 are promoted, fresh's three shards are placed.
    assertEquals(11, plan.steps().stream().filter(s -> s.action() == Action.PROMOTE).count());
    assertEquals(3, plan.steps().stream().filter(s -> s.action() == Action.PLACE).count());
  }

  @Test
  void clusterLimitCapsMovesPerPassAndPerBrokerLimitWaitsInsteadOfTakingAWorsePair() {
    ClusterSnapshot three = skewed().settings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(3)).snapshot();
    assertEquals(3, Planner.plan(three).moves().size());

    // Every move of perf-quorum must leave broker 2; one move per broker means one move per pass.
    ClusterSnapshot perBroker = oneMovePerBroker(skewed());
    Plan plan = Planner.plan(perBroker);
    assertEquals(1, plan.moves().size());
    assertEquals(2, plan.moves().get(0).from());

    SimulationResult result = Simulator.run(perBroker);
    assertEquals(List.of(4, 4, 4), counts(result, "perf-quorum"));
    assertEquals(6, result.passes() - 1, "six passes of one move, then an empty pass");
  }

  @Test
  void perBrokerLimitLetsDisjointPairsMoveInTheSamePass() {
    ClusterSnapshot snapshot = oneMovePerBroker(Layouts.liveBrokers(4)
        .stream("a", 4, 6, 0, 2, 0)
        .stream("b", 4, 0, 2, 0, 6));

    Plan plan = Planner.plan(snapshot);

    Map<Integer, Integer> perBroker = new HashMap<>();
    for (Step move : plan.moves()) {
      perBroker.merge(move.from(), 1, Integer::sum);
      perBroker.merge(move.to(), 1, Integer::sum);
    }
    assertEquals(2, plan.moves().size());
    assertTrue(perBroker.values().stream().allMatch(n -> n == 1), "moves per broker " + perBroker);
  }

  @Test
  void bestPairHeldBackByAPerBrokerLimitWaitsInsteadOfMovingFromTheNextBroker() {
    // Broker 0 leads 6 of "g" and broker 3 leads 4; broker 1 leads none. Broker 0 is busy with a move of "other".
    ClusterSnapshot snapshot = oneMovePerBroker(Layouts.liveBrokers(4)
        .stream("g", 4, 6, 0, 2, 4)
        .stream("other", 4, 1, 0, 0, 0))
        .withMovesInFlight(List.of(new MoveInFlight("other", 0, 0, 2)));

    Plan waiting = Planner.plan(snapshot);
    assertTrue(waiting.moves().isEmpty(), "the 0 -> 1 move waits; 3 -> 1 would be a worse pair: " + waiting);

    Plan allowed = Planner.plan(snapshot.withSettings(snapshot.settings().withMaxMovesPerBroker(2)));
    assertEquals(0, allowed.moves().get(0).from());
    assertEquals(1, allowed.moves().get(0).to());
  }

  @Test
  void movesInFlightCountAsFinishedAndAgainstTheLimit() {
    Layouts layouts = skewed();
    ClusterSnapshot snapshot = layouts.snapshot();
    // Shards 2..11 are led by broker 2; three are already on their way to 0 and three to 1.
    List<MoveInFlight> moves = List.of(
        new MoveInFlight("perf-quorum", 2, 2, 0), new MoveInFlight("perf-quorum", 3, 2, 0),
        new MoveInFlight("perf-quorum", 4, 2, 0), new MoveInFlight("perf-quorum", 5, 2, 1),
        new MoveInFlight("perf-quorum", 6, 2, 1), new MoveInFlight("perf-quorum", 7, 2, 1));
    ClusterSnapshot inFlight = snapshot.withMovesInFlight(moves)
        .withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(100));

    assertTrue(Planner.plan(inFlight).isEmpty(), "4/4/4 once the moves finish: nothing more to do");

    ClusterSnapshot oneInFlight = snapshot.withMovesInFlight(moves.subList(0, 1));
    assertTrue(Planner.plan(oneInFlight).isEmpty(), "the one allowed move is in flight already");

    ClusterSnapshot twoAllowed = oneInFlight.withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(2));
    Plan plan = Planner.plan(twoAllowed);
    assertEquals(1, plan.moves().size());
    // Broker 0 counts as leading 2 already, so the move goes to broker 1, and not of the shard in flight.
    assertEquals(1, plan.moves().get(0).to());
    assertTrue(plan.moves().get(0).shard() != 2);
  }
}
