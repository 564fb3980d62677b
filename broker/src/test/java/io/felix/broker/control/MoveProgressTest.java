package io.felix.broker.control;

import io.felix.broker.testing.ManualClock;
import static io.felix.broker.control.TestReplicas.holding;
import static io.felix.broker.control.TestReplicas.notHosted;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.shard.ReplicaStatus;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A move catches up, fences the leader, and cuts over only to a destination holding every record of the fenced
 * leader; a copy that stops progressing is aborted (however long a progressing one takes), and a move fenced
 * for longer than the fence timeout is handed to a failover round.
 */
class MoveProgressTest {

  private static final ShardId SHARD = new ShardId("s", 0);
  private static final ControlSettings SETTINGS = PlacementDecisionsTest.SETTINGS;
  private static final long STALL_TIMEOUT = SETTINGS.moveStallTimeout().toMillis();
  private static final long FENCE_TIMEOUT = SETTINGS.moveFenceTimeout().toMillis();
  private static final long STARTED_AT = 1_000;
  private static final Set<Integer> ALL = Set.of(0, 1, 2);

  private final ManualClock clock = new ManualClock(STARTED_AT);
  private final RecordingProbe probe = new RecordingProbe();
  private final ProbeContext probing =
      new ProbeContext(SETTINGS, probe, clock, LoggerFactory.getLogger(MoveProgressTest.class));
  private final MoveProgress moves = new MoveProgress(probing);

  @Test
  void theLeaderIsFencedOnceTheDestinationIsWithinTheCatchUpLag() {
    ControlState state = stagedMove();
    ShardAssignment a = state.shards().get(SHARD);
    int to = state.moves().get(SHARD).to();

    assertEquals(List.of(), moves.progress(state, ALL, Set.of()));
    assertEquals(List.of("describe " + a.leader() + " s/0", "describe " + to + " s/0"), probe.drain());
    // The answers are not back yet: no second round of questions within the probe interval.
    clock.advance(SETTINGS.probeInterval().toMillis() - 1);
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()));
    assertEquals(List.of(), probe.drain());

    moves.answered(holding(SHARD, a.leader(), 1, 1_000), 0);
    moves.answered(holding(SHARD, to, 1, 1_000 - SETTINGS.moveCatchUpLag() - 1), 0);
    clock.advance(1);
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()), "one record more than the lag behind");
    assertEquals(List.of("describe " + a.leader() + " s/0", "describe " + to + " s/0"), probe.drain());

    moves.answered(holding(SHARD, to, 1, 1_000 - SETTINGS.moveCatchUpLag()), 0);
    assertEquals(List.of(new MoveFenced(SHARD, 2)), moves.progress(state, ALL, Set.of()));
  }

  @Test
  void aFencedMoveCutsOverOnlyToADestinationHoldingTheLeadersRecordsOfItsLastEpoch() {
    ControlState state = PlacementDecisionsTest.replay(stagedMove(), List.of(new MoveFenced(SHARD, 2)));
    ShardAssignment a = state.shards().get(SHARD);
    int leader = a.leader();
    int to = state.moves().get(SHARD).to();
    clock.set(STARTED_AT + 1_000);

    // Not answered yet: the leader is fenced again (its answer carries its log end), the destination described.
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()));
    assertEquals(List.of("fence " + leader + " s/0 @2", "describe " + to + " s/0"), probe.drain());

    // The leader answers the fence without its replica (restarted, or its actor stopped): log end 0 proves nothing.
    assertNoProgressAfterAnswers(state, notHosted(SHARD, leader), 2, holding(SHARD, to, 1, 90), 0);

    // A longer log whose last epoch differs from the fenced leader's is a diverged tail, not a copy.
    assertNoProgressAfterAnswers(state, holding(SHARD, leader, 1, 80), 2, holding(SHARD, to, 0, 95), 0);

    // The destination's answer from before the leader's last one may predate records the leader took since.
    assertNoProgressAfterAnswers(state, holding(SHARD, to, 1, 80), 0, holding(SHARD, leader, 1, 80), 2);

    // Both answered, but the leader is no longer reachable: no cut-over from a lost replica's word.
    moves.answered(holding(SHARD, to, 1, 80), 0);
    clock.advance(1);
    assertEquals(List.of(), moves.progress(state, Set.of(to), Set.of()));

    // The same last epoch and at least the leader's log end: every record is there, so the move completes.
    ShardAssignment after = PlacementSnapshots.finished(a, state.moves().get(SHARD), 2);
    assertEquals(List.of(new MoveCompleted(SHARD, after.replicas(), to, 2, clock.millis())),
        moves.progress(state, ALL, Set.of()));
  }

  @Test
  void aCopyWithoutProgressForTheStallTimeoutIsAbortedAndTheLeaderKeepsLeadingAtItsEpoch() {
    ControlState state = stagedMove();
    ShardAssignment before = state.shards().get(SHARD);
    int to = state.moves().get(SHARD).to();

    moves.progress(state, ALL, Set.of()); // first sight: the stall window starts
    moves.answered(holding(SHARD, before.leader(), 1, 1_000_000), 0);
    moves.answered(holding(SHARD, to, 1, 500), 0);
    clock.advance(STALL_TIMEOUT / 2);
    moves.answered(holding(SHARD, to, 1, 500), 0); // the same log end: no progress
    clock.set(STARTED_AT + STALL_TIMEOUT);
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()));
    probe.drain();
    clock.advance(1);
    List<PlacementEvent> events = moves.progress(state, ALL, Set.of());

    assertEquals(List.of(new MoveAborted(SHARD, 1, "no copy progress for " + STALL_TIMEOUT + " ms", clock.millis())),
        events);
    assertEquals(List.of(), probe.drain());
    ControlState after = PlacementDecisionsTest.replay(state, events);
    assertEquals(before, after.shards().get(SHARD));
    assertEquals(MoveState.ABORTED, after.recentMoves().get(0).state());
  }

  @Test
  void aCopyThatKeepsProgressingIsNeverAbortedHoweverLongItTakes() {
    ControlState state = stagedMove();
    int leader = state.shards().get(SHARD).leader();
    int to = state.moves().get(SHARD).to();
    moves.progress(state, ALL, Set.of());
    for (int step = 1; step <= 20; step++) { // ten stall timeouts, far past any fixed move timeout of the past
      moves.answered(holding(SHARD, leader, 1, 1_000_000), 0);
      moves.answered(holding(SHARD, to, 1, step * 1_000), 0);
      clock.advance(STALL_TIMEOUT / 2);
      assertEquals(List.of(), moves.progress(state, ALL, Set.of()), "still copying at step " + step);
    }
    // Then it stops growing: one stall timeout after its last growth, the move is given up.
    clock.advance(STALL_TIMEOUT / 2 + 1);
    assertEquals(List.of(new MoveAborted(SHARD, 1, "no copy progress for " + STALL_TIMEOUT + " ms", clock.millis())),
        moves.progress(state, ALL, Set.of()));
  }

  @Test
  void aMoveFencedHereIsHandedToFailoverOnceFencedForTheFenceTimeout() {
    ControlState state = stagedMove();
    ShardAssignment a = state.shards().get(SHARD);
    int to = state.moves().get(SHARD).to();
    moves.progress(state, ALL, Set.of());
    clock.advance(STALL_TIMEOUT - 1); // a long copy does not shorten the fence's own window
    moves.answered(holding(SHARD, a.leader(), 1, 1_000), 0);
    moves.answered(holding(SHARD, to, 1, 1_000), 0);
    List<PlacementEvent> fenced = moves.progress(state, ALL, Set.of());
    assertEquals(List.of(new MoveFenced(SHARD, 2)), fenced);
    state = PlacementDecisionsTest.replay(state, fenced);

    clock.advance(FENCE_TIMEOUT);
    assertEquals(Set.of(), moves.handedToFailover(state));
    clock.advance(1);
    assertEquals(Set.of(SHARD), moves.handedToFailover(state));
  }

  @Test
  void aFencedMovePastTheFenceTimeoutIsHandedToFailoverWhichChoosesTheReplicaHoldingMost() {
    ControlState state = FailoverRoundsTest.oneShardOnThreeBrokers();
    ShardAssignment a = state.shards().get(SHARD);
    int from = a.leader();
    int to = a.replicas().stream().filter(b -> b != from).findFirst().orElseThrow();
    state = PlacementDecisionsTest.replay(state, List.of(new MoveStarted(1, SHARD, from, to, false, "test", STARTED_AT),
        new MoveFenced(SHARD, 2)));

    // Fenced by an earlier singleton: the window starts when this one first sees it.
    assertEquals(Set.of(), moves.handedToFailover(state));
    clock.set(STARTED_AT + FENCE_TIMEOUT);
    assertEquals(Set.of(), moves.handedToFailover(state));
    clock.advance(1);
    assertEquals(Set.of(SHARD), moves.handedToFailover(state));
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()), "the failover round ends it, not the move");
    assertEquals(List.of(), probe.drain());

    // Every replica, the fenced leader too, is fenced at the next epoch.
    FailoverRounds failovers = new FailoverRounds(probing);
    assertEquals(List.of(), failovers.progress(state, ALL, moves.handedToFailover(state)));
    assertEquals(a.replicas().stream().map(b -> "fence " + b + " s/0 @3").toList(), probe.drain());

    // The destination holds more than the fenced leader (which lost unflushed records): it is chosen.
    failovers.answered(holding(SHARD, from, 1, 40), 3);
    failovers.answered(holding(SHARD, to, 1, 45), 3);
    assertEquals(List.of(
            new MoveAborted(SHARD, 3, "fenced for over " + FENCE_TIMEOUT + " ms, or leader " + from + " restarted",
                clock.millis()),
            new LeaderPromoted(SHARD, to, 3, from)),
        failovers.progress(state, ALL, moves.handedToFailover(state)));
  }

  /** A two-replica shard on three brokers, moving its leader to the third broker (a staged copy) at STARTED_AT. */
  private static ControlState stagedMove() {
    ControlState brokers = PlacementDecisionsTest.threeBrokers();
    ControlState state = PlacementDecisionsTest.replay(brokers, new PlacementDecisions(SETTINGS)
        .createStream(brokers, ALL, "s", 1, 2).events());
    ShardAssignment a = state.shards().get(SHARD);
    int outsider = ALL.stream().filter(b -> !a.replicas().contains(b)).findFirst().orElseThrow();
    PlacementDecisions.Decision move = new PlacementDecisions(SETTINGS).startMove(state, ALL, "s", 0, outsider,
        STARTED_AT);
    return PlacementDecisionsTest.replay(state, move.events());
  }

  /** The two answers arrive one millisecond apart, and neither completes nor aborts the move. */
  private void assertNoProgressAfterAnswers(ControlState state, ReplicaStatus first, long firstFenceEpoch,
      ReplicaStatus second, long secondFenceEpoch) {
    moves.answered(first, firstFenceEpoch);
    clock.advance(1);
    moves.answered(second, secondFenceEpoch);
    clock.advance(1);
    assertEquals(List.of(), moves.progress(state, ALL, Set.of()));
  }
}
