package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.ReplicaProbe.ReplicaReport;
import io.felix.broker.shard.ReplicaRole;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Fence first, then choose: a failover round fences every reachable replica at epoch + 1 and promotes, once a
 * majority answered, a replica with the greatest (last epoch, log end) - never before a majority answered.
 */
class ReplicaRoundsTest {

  /** Records what the rounds asked for; answers are fed back by the test as the directories would. */
  static final class AskedFences implements ReplicaProbe {
    final List<String> asked = new ArrayList<>();

    @Override
    public boolean fence(int brokerId, ShardId shard, long epoch) {
      asked.add("fence " + brokerId + " " + shard + " @" + epoch);
      return true;
    }

    @Override
    public boolean describe(int brokerId, ShardId shard) {
      asked.add("describe " + brokerId + " " + shard);
      return true;
    }
  }

  @Test
  void failoverWaitsForAMajorityOfFencesThenPromotesTheReplicaHoldingMost() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(state, Set.of(0, 1, 2), "s", 1, 3).events());
    ShardAssignment a = state.shards().get(new ShardId("s", 0));
    int lost = a.leader();
    List<Integer> survivors = a.replicas().stream().filter(b -> b != lost).toList();
    AskedFences probe = new AskedFences();
    ReplicaRounds rounds = new ReplicaRounds(PlacementDecisionsTest.SETTINGS, probe, LoggerFactory.getLogger("test"));
    Set<Integer> available = Set.copyOf(survivors);
    Map<Integer, Long> lostSince = Map.of(lost, 0L);
    long now = PlacementDecisionsTest.SETTINGS.failoverTimeout().toMillis() + 1;

    assertEquals(List.of(), rounds.progress(state, available, lostSince, Set.of(), now));
    assertEquals(List.of("fence " + survivors.get(0) + " s/0 @2", "fence " + survivors.get(1) + " s/0 @2"), probe.asked);

    // One answer of three replicas is no majority: nothing is decided.
    rounds.answered(new ReplicaReport(a.id(), survivors.get(0), true, ReplicaRole.FENCED, 1, 40, 38, false), 2, now);
    assertEquals(List.of(), rounds.progress(state, available, lostSince, Set.of(), now + 10));

    // The second survivor holds more of epoch 1: it holds every committed record and is promoted at epoch 2.
    rounds.answered(new ReplicaReport(a.id(), survivors.get(1), true, ReplicaRole.FENCED, 1, 45, 38, false), 2,
        now + 20);
    assertEquals(List.of(new LeaderPromoted(a.id(), survivors.get(1), 2, lost)),
        rounds.progress(state, available, lostSince, Set.of(), now + 30));
  }

  @Test
  void aFencedMoveThatTimesOutFailsOverToTheReplicaHoldingMostInsteadOfReappointingTheFencedLeader() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(state, Set.of(0, 1, 2), "s", 1, 3).events());
    ShardAssignment a = state.shards().get(new ShardId("s", 0));
    int from = a.leader();
    int to = a.replicas().stream().filter(b -> b != from).findFirst().orElseThrow();
    state = PlacementDecisionsTest.replay(state, List.of(new MoveStarted(1, a.id(), from, to, false, "test", 0),
        new MoveFenced(a.id(), 2)));
    AskedFences probe = new AskedFences();
    ReplicaRounds rounds = new ReplicaRounds(PlacementDecisionsTest.SETTINGS, probe, LoggerFactory.getLogger("test"));
    Set<Integer> available = Set.of(0, 1, 2);
    long now = PlacementDecisionsTest.SETTINGS.moveTimeout().toMillis() + 1;

    // Past the move timeout every replica, the fenced leader too, is fenced at the next epoch.
    assertEquals(List.of(), rounds.progress(state, available, Map.of(), Set.of(), now));
    assertEquals(a.replicas().stream().map(b -> "fence " + b + " s/0 @3").toList(), probe.asked);

    // The destination holds more than the fenced leader (which lost unflushed records): it is chosen.
    rounds.answered(new ReplicaReport(a.id(), from, true, ReplicaRole.FENCED, 1, 40, 38, false), 3, now);
    rounds.answered(new ReplicaReport(a.id(), to, true, ReplicaRole.FENCED, 1, 45, 38, false), 3, now + 10);
    List<PlacementEvent> events = rounds.progress(state, available, Map.of(), Set.of(), now + 20);
    assertEquals(2, events.size(), events.toString());
    MoveAborted aborted = (MoveAborted) events.get(0);
    assertEquals(a.id(), aborted.shard());
    assertEquals(3, aborted.epoch());
    assertEquals(new LeaderPromoted(a.id(), to, 3, from), events.get(1));
  }

  @Test
  void aRestartedLeaderIsFencedWithTheOthersAndChosenAgainAtANewEpochWhenItHoldsMost() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(state, Set.of(0, 1, 2), "s", 1, 3).events());
    ShardAssignment a = state.shards().get(new ShardId("s", 0));
    int restarted = a.leader();
    int other = a.replicas().stream().filter(b -> b != restarted).findFirst().orElseThrow();
    AskedFences probe = new AskedFences();
    ReplicaRounds rounds = new ReplicaRounds(PlacementDecisionsTest.SETTINGS, probe, LoggerFactory.getLogger("test"));
    Set<Integer> available = Set.of(0, 1, 2);

    // Never lost for the failover timeout, but restarted: every replica is fenced at once.
    assertEquals(List.of(), rounds.progress(state, available, Map.of(), Set.of(a.id()), 1));
    assertEquals(a.replicas().stream().map(b -> "fence " + b + " s/0 @2").toList(), probe.asked);

    rounds.answered(new ReplicaReport(a.id(), restarted, true, ReplicaRole.FENCED, 1, 50, 38, false), 2, 2);
    rounds.answered(new ReplicaReport(a.id(), other, true, ReplicaRole.FENCED, 1, 45, 38, false), 2, 3);
    assertEquals(List.of(new LeaderPromoted(a.id(), restarted, 2, restarted)),
        rounds.progress(state, available, Map.of(), Set.of(a.id()), 4));
  }

  @Test
  void aFencedMoveCutsOverOnlyToADestinationHoldingTheLeadersRecordsOfItsLastEpoch() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(state, Set.of(0, 1, 2), "s", 1, 2).events());
    ShardAssignment a = state.shards().get(new ShardId("s", 0));
    int leader = a.leader();
    int to = List.of(0, 1, 2).stream().filter(b -> !a.replicas().contains(b)).findFirst().orElseThrow();
    PlacementDecisions.Decision move = new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .startMove(state, Set.of(0, 1, 2), "s", 0, to, 0);
    state = PlacementDecisionsTest.replay(state, move.events());
    state = PlacementDecisionsTest.replay(state, List.of(new MoveFenced(a.id(), 2)));
    ReplicaRounds rounds = new ReplicaRounds(PlacementDecisionsTest.SETTINGS, new AskedFences(),
        LoggerFactory.getLogger("test"));
    Set<Integer> all = Set.of(0, 1, 2);
    long now = 1_000;

    // The leader answers the fence without its replica (restarted, or its actor stopped): log end 0 proves nothing.
    rounds.answered(new ReplicaReport(a.id(), leader, false, ReplicaRole.NONE, -1, 0, 0, false), 2, now);
    rounds.answered(new ReplicaReport(a.id(), to, true, ReplicaRole.LEARNER, 1, 90, 0, false), 0, now + 1);
    assertEquals(List.of(), rounds.progress(state, all, Map.of(), Set.of(), now + 2));

    // A longer log whose last epoch differs from the fenced leader's is a diverged tail, not a copy.
    rounds.answered(new ReplicaReport(a.id(), leader, true, ReplicaRole.FENCED, 1, 80, 0, false), 2, now + 3);
    rounds.answered(new ReplicaReport(a.id(), to, true, ReplicaRole.LEARNER, 0, 95, 0, false), 0, now + 4);
    assertEquals(List.of(), rounds.progress(state, all, Map.of(), Set.of(), now + 5));

    // The same last epoch and at least the leader's log end: every record is there, so the move completes.
    rounds.answered(new ReplicaReport(a.id(), to, true, ReplicaRole.LEARNER, 1, 80, 0, false), 0, now + 6);
    List<PlacementEvent> events = rounds.progress(state, all, Map.of(), Set.of(), now + 7);
    assertEquals(1, events.size(), events.toString());
    assertTrue(events.get(0) instanceof MoveCompleted c && c.leader() == to && c.epoch() == 2, events.toString());
  }
}
