package io.felix.broker.control;

import io.felix.broker.testing.ManualClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.NotServingReason;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Leadership is checked, not assumed: a reachable leader that answers twice, an interval apart, that it does not
 * lead at its assigned epoch needs a failover round; one answer, or a leader that leads, does not.
 */
class LeaderCheckTest {
  private static final ShardId SHARD = new ShardId("s", 0);
  private static final long INTERVAL = PlacementDecisionsTest.SETTINGS.placementInterval().toMillis();

  private final ManualClock clock = new ManualClock(50_000);
  private final RecordingProbe probe = new RecordingProbe();
  private final LeaderCheck check = new LeaderCheck(new ProbeContext(PlacementDecisionsTest.SETTINGS, probe, clock,
      LoggerFactory.getLogger(LeaderCheckTest.class)));
  private final ControlState state = FailoverRoundsTest.oneShardOnThreeBrokers();
  private final ShardAssignment shard = state.shards().get(SHARD);
  private final Set<Integer> everyone = Set.of(0, 1, 2);
  /** The table version the answering broker holds: by default the one of {@code state}. */
  private long applied = state.tableVersion();

  private ReplicaStatus leaderAnswers(ReplicaRole role) {
    return new ReplicaStatus(SHARD, shard.leader(), true, role, 1, 10, 10, false, false, 1);
  }

  @Test
  void eachReachableLeaderIsAskedOncePerInterval() {
    check.ask(state, everyone);
    assertEquals(List.of("describe " + shard.leader() + " s/0"), probe.drain());
    clock.advance(INTERVAL - 1);
    check.ask(state, everyone);
    assertEquals(List.of(), probe.drain());
    clock.advance(1);
    check.ask(state, everyone);
    assertEquals(List.of("describe " + shard.leader() + " s/0"), probe.drain());

    // An unreachable leader is the failure detector's business, not this check's.
    clock.advance(INTERVAL);
    check.ask(state, Set.of());
    assertEquals(List.of(), probe.drain());
  }

  @Test
  void aLeaderStillOpeningItsLogIsStartingNotFailing() {
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.STARTING), 0, applied);
    clock.advance(INTERVAL);
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.STARTING), 0, applied);
    assertFalse(check.notServing(shard), "a replica that has not had the time to open is not failed over");
    check.answered(leaderAnswers(ReplicaRole.LEADER), 0, applied);
    assertFalse(check.notServing(shard));
  }

  @Test
  void aLeaderThatTwiceAnswersItDoesNotLeadNeedsAFailover() {
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    assertFalse(check.notServing(shard), "one answer may predate the table that appoints it");

    clock.advance(INTERVAL);
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    assertTrue(check.notServing(shard));

    // A newer epoch (the failover it caused) makes the finding stale.
    ShardAssignment promoted = new ShardAssignment(SHARD, shard.replicas(), List.of(), shard.leader(),
        shard.leaderEpoch() + 1);
    assertFalse(check.notServing(promoted));
  }

  @Test
  void answersFromABrokerThatHasNotAppliedTheAppointmentDoNotCount() {
    ControlState later = state.apply(new PlacementEvent.TableVersionRaised(state.tableVersion() + 5));
    check.ask(later, everyone);
    applied = later.tableVersion() - 1;
    ReplicaStatus notHosted = ReplicaStatus.notHosted(SHARD, shard.leader());
    check.answered(notHosted, 0, applied);
    clock.advance(INTERVAL);
    check.ask(later, everyone);
    check.answered(notHosted, 0, applied);
    assertFalse(check.notServing(shard), "a broker whose table lags behind cannot host what it was not told of");

    // The shard was first asked about at the later version, and stays so while its leader and epoch do not change.
    applied = later.tableVersion();
    ControlState evenLater = later.apply(new PlacementEvent.TableVersionRaised(later.tableVersion() + 5));
    clock.advance(INTERVAL);
    check.ask(evenLater, everyone);
    check.answered(notHosted, 0, applied);
    clock.advance(INTERVAL);
    check.ask(evenLater, everyone);
    check.answered(notHosted, 0, applied);
    assertTrue(check.notServing(shard), "once the broker holds the appointment, two such answers fail it over");
  }

  @Test
  void aLeaderThatLeadsClearsTheSuspicionAndAnswersToFencesOrFromFollowersDoNotCount() {
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    clock.advance(INTERVAL);
    check.answered(leaderAnswers(ReplicaRole.LEADER), 0, applied);
    clock.advance(INTERVAL);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    assertFalse(check.notServing(shard), "the suspicion starts again after the leader led");

    int follower = shard.replicas().stream().filter(b -> b != shard.leader()).findFirst().orElseThrow();
    check.answered(new ReplicaStatus(SHARD, follower, true, ReplicaRole.FOLLOWER, 1, 10, 10, false, false, 1), 0, applied);
    clock.advance(INTERVAL);
    check.answered(leaderAnswers(ReplicaRole.FENCED), 2, applied);
    assertFalse(check.notServing(shard));
  }

  @Test
  void aShardLeftOutOfARolesOnlyAnswerLeadsAndClearsTheSuspicionOfItsLeaderOnly() {
    int follower = shard.replicas().stream().filter(b -> b != shard.leader()).findFirst().orElseThrow();
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    clock.advance(INTERVAL);
    check.leads(SHARD, follower); // another broker's word says nothing of the assigned leader
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    assertTrue(check.notServing(shard), "two answers an interval apart that it does not lead");

    assertTrue(check.reported(state, SHARD, shard.leader(), shard.leaderEpoch(), NotServingReason.FENCED_ABOVE_EPOCH));
    check.leads(SHARD, shard.leader());
    assertFalse(check.notServing(shard), "the leader's own later word that it leads clears it");
    clock.advance(INTERVAL);
    check.answered(leaderAnswers(ReplicaRole.FOLLOWER), 0, applied);
    assertFalse(check.notServing(shard), "and the suspicion starts again from one answer");
  }

  @Test
  void aReportOfTheCurrentLeaderAtTheCurrentEpochIsBelievedAtOnce() {
    assertTrue(check.reported(state, SHARD, shard.leader(), shard.leaderEpoch(),
        NotServingReason.EPOCH_HELD_BEFORE_RESTART));
    assertTrue(check.notServing(shard), "no second answer is waited for: the replica applied the table");
    // Repeated reports keep it so; a later answer that it leads clears it (it was appointed meanwhile).
    clock.advance(INTERVAL);
    assertTrue(check.reported(state, SHARD, shard.leader(), shard.leaderEpoch(), NotServingReason.FENCED_ABOVE_EPOCH));
    assertTrue(check.notServing(shard));
    check.ask(state, everyone);
    check.answered(leaderAnswers(ReplicaRole.LEADER), 0, applied);
    assertFalse(check.notServing(shard));
  }

  @Test
  void reportsOfAnOldEpochAnotherBrokerOrAShardMovingAreIgnored() {
    int follower = shard.replicas().stream().filter(b -> b != shard.leader()).findFirst().orElseThrow();
    assertFalse(check.reported(state, SHARD, shard.leader(), shard.leaderEpoch() - 1,
        NotServingReason.EPOCH_HELD_BEFORE_RESTART));
    assertFalse(check.reported(state, SHARD, follower, shard.leaderEpoch(), NotServingReason.FENCED_ABOVE_EPOCH));
    assertFalse(check.reported(state, new ShardId("other", 0), shard.leader(), shard.leaderEpoch(),
        NotServingReason.FENCED_ABOVE_EPOCH));
    ControlState moving = state.apply(new PlacementEvent.MoveStarted(1, SHARD, shard.leader(), follower, false,
        "test", clock.millis()));
    assertFalse(check.reported(moving, SHARD, shard.leader(), shard.leaderEpoch(),
        NotServingReason.FENCED_ABOVE_EPOCH));
    assertFalse(check.notServing(shard));
  }

  @Test
  void afterRecoveryOrAMemberUpEveryLeaderIsAskedAtOnce() {
    check.ask(state, everyone);
    assertEquals(List.of("describe " + shard.leader() + " s/0"), probe.drain());
    clock.advance(1);
    check.ask(state, everyone);
    assertEquals(List.of(), probe.drain());
    check.askAllAtOnce();
    check.ask(state, everyone);
    assertEquals(List.of("describe " + shard.leader() + " s/0"), probe.drain());
  }

  @Test
  void aLeaderWhoseDirectoryIsNotKnownYetIsAskedOnceItIs() {
    probe.unknown = true;
    check.ask(state, everyone);
    probe.drain();
    probe.unknown = false;
    clock.advance(1);
    check.ask(state, everyone);
    assertEquals(List.of("describe " + shard.leader() + " s/0"), probe.drain());
  }
}
