package io.felix.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Promotion of a follower when a leader fails: only in-sync replicas, spread by the same tiers as placement. */
class FailoverPromotionTest {

  @Test
  void failedLeadersArePromotedOnlyToInSyncReplicas() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(4)
        .broker(new Broker(0, null, null, BrokerState.DOWN))
        .group(Group.stream("s", 3, 3))
        .assignment(new Assignment("s", 0, 0, List.of(0, 1, 2), List.of(0, 2)))
        .assignment(new Assignment("s", 1, 0, List.of(0, 1, 3), List.of(0, 1, 3)))
        .assignment(new Assignment("s", 2, 0, List.of(0, 2, 3), List.of(0)))
        .snapshot();

    Plan plan = Planner.plan(snapshot);

    List<Step> promotions = plan.steps().stream().filter(s -> s.action() == Action.PROMOTE).toList();
    assertEquals(2, promotions.size());
    assertEquals(new Step(Action.PROMOTE, Reason.FAILOVER, "s", 0, 0, 2, 2, List.of(0, 1, 2)), promotions.get(0));
    assertEquals(0, promotions.get(1).from());
    assertTrue(Set.of(1, 3).contains(promotions.get(1).to()));
    assertEquals(List.of(new ShardRef("s", 2)), plan.leaderless(), "no in-sync replica is left for s/2");
  }

  @Test
  void promotionsSpreadAStreamsLeadersOverTheSurvivors() {
    // RF 3 on 4 brokers; broker 3 leads 8 of 12 (replicas 3, 0, 1) and fails. Only 0 and 1 are in sync for them,
    // and each promotion counts at once, so they split 6/5 around broker 2's one leader.
    ClusterSnapshot snapshot = Layouts.liveBrokers(4).stream("s", 3, 2, 1, 1, 8)
        .broker(new Broker(3, null, null, BrokerState.DOWN)).snapshot();

    ClusterSnapshot after = Planner.plan(snapshot.withSettings(PlacementSettings.DEFAULT.withPaused(true)))
        .applyTo(snapshot);
    assertEquals(List.of(6, 5, 1), Layouts.counts(LeaderCounts.of(after), "s"));

    // Unpaused, stream moves then level it over the survivors.
    assertEquals(List.of(4, 4, 4), Layouts.counts(Simulator.run(snapshot), "s"));
  }

  @Test
  void promoteEntryPointChoosesAmongTheGivenInSyncBrokers() {
    ClusterSnapshot snapshot = Layouts.liveBrokers(3).stream("s", 3, 0, 2, 2).snapshot();
    // s/0 is led by broker 1. Broker 0 leads none of s, so it wins whenever it is in sync.
    Optional<Step> step = Planner.promote(snapshot, "s", 0, Set.of(0, 2));
    assertEquals(Optional.of(new Step(Action.PROMOTE, Reason.FAILOVER, "s", 0, 1, 0, 0, List.of(1, 2, 0))), step);

    assertEquals(2, Planner.promote(snapshot, "s", 0, Set.of(2)).orElseThrow().to());
    assertEquals(Optional.empty(), Planner.promote(snapshot, "s", 0, Set.of(1)), "the failed leader is no candidate");
    InvalidLayoutException e = assertThrows(InvalidLayoutException.class,
        () -> Planner.promote(snapshot, "s", 0, Set.of(7)));
    assertEquals("promote s/0: broker 7 holds no replica of it (replicas [1, 2, 0])", e.getMessage());
    assertEquals("promote t/0: no such shard", assertThrows(InvalidLayoutException.class,
        () -> Planner.promote(snapshot, "t", 0, Set.of(0))).getMessage());
    assertEquals("promote s/9: no such shard", assertThrows(InvalidLayoutException.class,
        () -> Planner.promote(snapshot, "s", 9, Set.of(0))).getMessage());
  }

  @Test
  void promoteAllCountsEachPromotionBeforeTheNextInOneLayout() {
    // The layout of promotionsSpreadAStreamsLeadersOverTheSurvivors: broker 3 led 8 of 12 and is down; 0 and 1 are in
    // sync for all of them. Promoted together, they split 4/4, as one planning pass splits them (6/5/1 in all).
    ClusterSnapshot snapshot = Layouts.liveBrokers(4).stream("s", 3, 2, 1, 1, 8)
        .broker(new Broker(3, null, null, BrokerState.DOWN)).snapshot();
    List<Planner.Promotion> asked = snapshot.assignments().stream().filter(a -> a.leader() == 3)
        .map(a -> new Planner.Promotion("s", a.shard(), Set.of(0, 1))).toList();
    assertEquals(8, asked.size());

    List<Optional<Step>> steps = Planner.promoteAll(snapshot, asked);

    assertEquals(8, steps.size());
    assertEquals(4, steps.stream().filter(s -> s.orElseThrow().to() == 0).count());
    assertEquals(4, steps.stream().filter(s -> s.orElseThrow().to() == 1).count());
    for (int i = 0; i < asked.size(); i++) {
      assertEquals(asked.get(i).shard(), steps.get(i).orElseThrow().shard(), "answers in the order asked");
      assertEquals(3, steps.get(i).orElseThrow().from());
    }
    assertEquals(List.of(Optional.empty()), Planner.promoteAll(snapshot,
        List.of(new Planner.Promotion("s", asked.get(0).shard(), Set.of(3)))), "the failed leader is no candidate");
    assertEquals("promote s/12: no such shard", assertThrows(InvalidLayoutException.class,
        () -> Planner.promoteAll(snapshot, List.of(new Planner.Promotion("s", 12, Set.of(0))))).getMessage());
  }

  @Test
  void leaderlessShardStillHasItsFollowerDrained() {
    // s/0 has no leader; broker 0 is down and the replica on draining broker 1 is not in sync: nobody can lead it.
    ClusterSnapshot snapshot = Layouts.liveBrokers(3)
        .broker(new Broker(0, null, null, BrokerState.DOWN))
        .broker(new Broker(1, null, null, BrokerState.DRAINING))
        .group(Group.stream("s", 1, 2))
        .assignment(new Assignment("s", 0, Assignment.NO_LEADER, List.of(0, 1), List.of(0)))
        .snapshot();

    Plan plan = Planner.plan(snapshot);

    assertEquals(List.of(new ShardRef("s", 0)), plan.leaderless());
    assertEquals(List.of(new Step(Action.MOVE, Reason.DRAIN, "s", 0, 1, 2, Assignment.NO_LEADER, List.of(0, 2))),
        plan.steps());
  }
}
