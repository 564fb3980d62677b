package io.felix.placement;

import static io.felix.placement.Layouts.counts;
import static io.felix.placement.Layouts.totals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Brokers joining, draining, capped, in zones, and a larger cluster. */
class BrokerChangesTest {

  @Test
  void joiningBrokerTakesItsShareOfEveryStreamWithoutAnyShardMovingTwice() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(3)
        .stream("a", 3, 4, 4, 4).stream("b", 3, 4, 4, 4).stream("c", 3, 3, 3, 2)
        .broker(Broker.live(3))
        .snapshot();

    SimulationResult result = Simulator.run(snapshot);

    assertTrue(result.converged());
    assertEquals(List.of(3, 3, 3, 3), counts(result, "a"));
    assertEquals(List.of(3, 3, 3, 3), counts(result, "b"));
    assertEquals(List.of(2, 2, 2, 2), counts(result, "c"));
    assertEquals(List.of(8, 8, 8, 8), totals(result));
    // 3 + 3 + 2 leaders above the new ceilings had to move, and no more did.
    assertEquals(8, result.moveCount());
    assertEquals(0, result.shardsMovedMoreThanOnce());
    // Broker 3 held no replica, so each of its leaders arrived as a staged copy replacing the giver.
    assertTrue(result.steps().stream().filter(s -> s.step().to() == 3).noneMatch(s -> s.step().isLeadershipTransfer()));
    assertEquals(12 * 3 + 12 * 3 + 8 * 3, Layouts.hosted(result.finalSnapshot()).values().stream()
        .mapToInt(i -> i).sum(), "replica count unchanged");
  }

  @Test
  void drainingBrokerEndsWithNothingAndTheRestLevel() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(4)
        .stream("a", 2, 3, 3, 3, 3).stream("b", 2, 2, 2, 2, 2)
        .broker(new Broker(3, null, null, BrokerState.DRAINING))
        .snapshot();

    SimulationResult result = Simulator.run(snapshot);

    assertTrue(result.converged());
    assertEquals(0, Layouts.hosted(result.finalSnapshot()).getOrDefault(3, 0), "broker 3 hosts nothing");
    assertFalse(result.leaders().total().containsKey(3), "a draining broker leading nothing is not listed");
    assertEquals(List.of(4, 4, 4), counts(result, "a"));
    assertTrue(Layouts.withinOne(result.leaders().groups().get("b")));
    assertTrue(result.steps().stream().filter(s -> s.step().reason() == Reason.DRAIN)
        .allMatch(s -> s.step().from() == 3));
    assertTrue(result.finalSnapshot().assignments().stream()
        .allMatch(a -> a.replicas().size() == 2 && !a.replicas().contains(3)));
  }

  @Test
  void brokerWithMaxShardsCapIsNeverFilledPastIt() {
    // Broker 3 joins with room for 2 replicas; without the cap a level layout would give it 3 leaders of "a".
    ClusterSnapshot snapshot = Layouts.liveBrokers(3)
        .stream("a", 2, 4, 4, 4)
        .broker(new Broker(3, null, 2, BrokerState.LIVE))
        .snapshot();

    SimulationResult result = Simulator.run(snapshot);

    assertTrue(result.converged());
    assertEquals(2, Layouts.hosted(result.finalSnapshot()).get(3));
    assertEquals(2, counts(result, "a").get(3));
    assertEquals(List.of(3, 3, 4, 2), counts(result, "a"));
    for (int pass = 1; pass <= result.passes(); pass++) {
      int p = pass;
      long into3 = result.steps().stream().filter(s -> s.pass() <= p && s.step().to() == 3
          && !s.step().isLeadershipTransfer()).count();
      assertTrue(into3 <= 2, "pass " + pass + " filled broker 3 past its cap");
    }
  }

  @Test
  void rebalanceMovesNeverReduceAShardsZones() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(0)
        .broker(new Broker(0, "a", null, BrokerState.LIVE))
        .broker(new Broker(1, "a", null, BrokerState.LIVE))
        .broker(new Broker(2, "b", null, BrokerState.LIVE))
        .group(Group.stream("z", 4, 2))
        .assignment(new Assignment("z", 0, 2, List.of(2, 0)))
        .assignment(new Assignment("z", 1, 2, List.of(2, 0)))
        .assignment(new Assignment("z", 2, 2, List.of(2, 0)))
        .assignment(new Assignment("z", 3, 2, List.of(2, 0)))
        .snapshot();

    SimulationResult result = Simulator.run(snapshot);

    assertTrue(result.converged());
    // Broker 1 may only receive a shard whose other replica is in zone b: one that broker 0 leads by then.
    assertEquals(List.of(1, 1, 2), counts(result, "z"));
    Map<Integer, String> zones = Map.of(0, "a", 1, "a", 2, "b");
    for (Assignment a : result.finalSnapshot().assignments()) {
      Set<String> zoneSet = new HashSet<>();
      a.replicas().forEach(b -> zoneSet.add(zones.get(b)));
      assertEquals(2, zoneSet.size(), a + " lost a zone");
    }
    // The one shard broker 1 leads had to reach it through broker 0 (2 -> 0 transfer, then a copy 0 -> 1 that
    // keeps zone b): the case where zones make a second move of a shard unavoidable.
    assertEquals(1, result.shardsMovedMoreThanOnce());
    assertEquals(3, result.moveCount());
  }

  @Test
  void fiveBrokersWithReplicationFactorThreeBalanceEveryGroupAndTheTotals() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(5)
        .stream("s1", 3, 20, 0, 0, 0, 0)
        .stream("s2", 3, 0, 0, 7, 7, 0)
        .stream("s3", 3, 1, 2, 3, 4, 5)
        .cache("c1", 3, 0, 0, 0, 0, 9)
        .snapshot();

    SimulationResult result = Simulator.run(snapshot);

    assertTrue(result.converged());
    assertEquals(List.of(4, 4, 4, 4, 4), counts(result, "s1"));
    assertEquals(List.of(3, 3, 3, 3, 3), counts(result, "s3"));
    assertTrue(Layouts.withinOne(result.leaders().groups().get("s2")));
    assertTrue(Layouts.withinOne(result.leaders().groups().get("c1")));
    assertTrue(Layouts.withinOne(result.leaders().total()));
    assertEquals(0, result.shardsMovedMoreThanOnce());
  }
}
