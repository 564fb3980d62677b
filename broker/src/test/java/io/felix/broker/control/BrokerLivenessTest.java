package io.felix.broker.control;

import io.felix.broker.testing.ManualClock;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.BrokerLiveness.BrokerMember;
import io.felix.broker.control.BrokerLiveness.FailoverDone;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Which brokers the singleton counts on, from membership snapshots and a clock the test sets: a broker lost for
 * the failover timeout, or restarted, has its led shards fail over; one reachable again is no longer lost.
 */
class BrokerLivenessTest {

  private static final long FAILOVER_TIMEOUT = PlacementDecisionsTest.SETTINGS.failoverTimeout().toMillis();

  private final ManualClock clock = new ManualClock(10_000);
  private final BrokerLiveness liveness =
      new BrokerLiveness(PlacementDecisionsTest.SETTINGS, clock, LoggerFactory.getLogger(BrokerLivenessTest.class));
  /** Three brokers, one stream of three shards: each broker leads one. */
  private final ControlState state = threeShardsOnThreeBrokers();

  @Test
  void aBrokerUnreachableForTheFailoverTimeoutHasTheShardsItLedFailOver() {
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertEquals(Set.of(0, 1, 2), liveness.available());

    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertEquals(Set.of(0, 1), liveness.available());
    assertFalse(liveness.needsFailover(ledBy(2)), "just lost: the failover timeout has not passed");

    clock.advance(FAILOVER_TIMEOUT - 1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertFalse(liveness.needsFailover(ledBy(2)));

    clock.advance(1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertTrue(liveness.needsFailover(ledBy(2)));
    assertFalse(liveness.needsFailover(ledBy(0)));
    assertFalse(liveness.needsFailover(ledBy(1)));

    // Once its shard has a new leader, the failover of broker 2 is reported done, once.
    clock.advance(250);
    ShardAssignment lost = ledBy(2);
    ControlState promoted = state.apply(new LeaderPromoted(lost.id(), 0, lost.leaderEpoch() + 1, 2));
    assertEquals(List.of(new FailoverDone(2, 1, FAILOVER_TIMEOUT + 250)), liveness.decided(promoted));
    assertEquals(List.of(), liveness.decided(promoted));
  }

  @Test
  void aBrokerAbsentFromTheFirstMembershipThisSingletonSeesWasDownedBeforeItAndFailsOverAtOnce() {
    liveness.refresh(state, List.of(up(0, 1), unreachable(1, 1)));

    assertEquals(Set.of(0), liveness.available());
    assertTrue(liveness.needsFailover(ledBy(2)), "never seen: already lost for the whole failover timeout");
    assertFalse(liveness.needsFailover(ledBy(1)), "a member, unreachable: lost from now on");
    assertFalse(liveness.needsFailover(ledBy(0)), "first seen up: a first sighting is no restart");
  }

  @Test
  void aSingletonThatFindsMostBrokersMissingAtItsFirstLookCountsTheClusterAsStartingForTheGrace() {
    long grace = PlacementDecisionsTest.SETTINGS.clusterStartGrace().toMillis();
    liveness.refresh(state, List.of(up(0, 1)));
    assertTrue(liveness.clusterStarting(), "one of three brokers up: every broker restarted");
    // Broker 2 does not come back: the grace runs from the singleton's start.

    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    clock.advance(grace - 1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    assertTrue(liveness.clusterStarting());
    clock.advance(1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    assertFalse(liveness.clusterStarting());
  }

  @Test
  void onceEveryBrokerIsUpTheRoundsWaitTheOpenGraceFromThatMomentOnce() {
    long openGrace = PlacementDecisionsTest.SETTINGS.clusterStartOpenGrace().toMillis();
    liveness.refresh(state, List.of(up(0, 1)));
    clock.advance(30_000);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    clock.advance(openGrace - 1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertTrue(liveness.clusterStarting(), "the last brokers up still open their replicas");
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    clock.advance(1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertFalse(liveness.clusterStarting(), "counted once: a broker up again later does not extend it");
  }

  @Test
  void aSingletonThatTakesOverFromAMajorityOfBrokersUpDoesNotWaitForTheOthersOnceABrokerSaysItHoldsATable() {
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    assertTrue(liveness.clusterStarting(), "until a broker says which table it holds, a start is not ruled out");
    liveness.heldTable(state.tableVersion());
    assertFalse(liveness.clusterStarting(), "the singleton moved: its old host is the one missing");
  }

  @Test
  void aMajorityOfBrokersUpThatHoldNoTableIsAWholeClusterStartWhoseBrokersJoinedBeforeTheSingletonLooked() {
    long grace = PlacementDecisionsTest.SETTINGS.clusterStartGrace().toMillis();
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    liveness.heldTable(0);
    liveness.heldTable(0);
    liveness.heldTablesUnanswered();
    clock.advance(grace - 1);
    assertTrue(liveness.clusterStarting(), "every broker up restarted: the cluster is starting");
    clock.advance(1);
    assertFalse(liveness.clusterStarting());
  }

  @Test
  void aBrokerHoldingATableEndsTheStartEvenWithMostBrokersMissingAndEvenAfterOthersHeldNone() {
    liveness.refresh(state, List.of(up(0, 1)));
    liveness.heldTable(0);
    assertTrue(liveness.clusterStarting());
    liveness.heldTable(state.tableVersion() + 3);
    assertFalse(liveness.clusterStarting(), "a broker ran before this singleton: it took over a running cluster");
    liveness.heldTable(0);
    assertFalse(liveness.clusterStarting(), "a broker restarting later changes nothing");
  }

  @Test
  void withoutAnyBrokerSayingWhichTableItHoldsTheFirstLookDecides() {
    liveness.refresh(state, List.of(up(0, 1), up(1, 1)));
    liveness.heldTablesUnanswered();
    assertFalse(liveness.clusterStarting(), "a majority up, nobody answered: a takeover");

    BrokerLiveness mostMissing =
        new BrokerLiveness(PlacementDecisionsTest.SETTINGS, clock, LoggerFactory.getLogger(BrokerLivenessTest.class));
    mostMissing.refresh(state, List.of(up(0, 1)));
    mostMissing.heldTablesUnanswered();
    assertTrue(mostMissing.clusterStarting(), "one of three up: a start");
  }

  @Test
  void noClusterStartGraceWhenItIsTurnedOff() {
    ControlSettings off = ControlSettings.fromConfig(ConfigFactory.parseString("felix.control.cluster-start-grace = 0s")
        .withFallback(ConfigFactory.defaultReference()));
    BrokerLiveness withoutGrace = new BrokerLiveness(off, clock, LoggerFactory.getLogger(BrokerLivenessTest.class));
    withoutGrace.refresh(state, List.of(up(0, 1)));
    assertFalse(withoutGrace.clusterStarting());
  }

  @Test
  void aNewIncarnationOfABrokerHasTheShardsItLedFailOverAtOnceUntilANewerEpochIsDecided() {
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    clock.advance(500);
    liveness.refresh(state, List.of(up(0, 2), up(1, 1), up(2, 1)));

    ShardAssignment restarted = ledBy(0);
    assertTrue(liveness.needsFailover(restarted), "its replica will not lead again at the epoch its log holds");
    assertFalse(liveness.needsFailover(ledBy(1)));

    // A failover round chose broker 0 again, at a newer epoch: nothing more to do.
    ControlState promoted = state.apply(new LeaderPromoted(restarted.id(), 0, restarted.leaderEpoch() + 1, 0));
    assertEquals(List.of(), liveness.decided(promoted), "a restarted broker was never lost");
    assertFalse(liveness.needsFailover(promoted.shards().get(restarted.id())));
  }

  @Test
  void aBrokerReachableAgainBeforeTheFailoverTimeoutIsNoLongerLost() {
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    clock.advance(FAILOVER_TIMEOUT - 1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertEquals(Set.of(0, 1, 2), liveness.available());

    clock.advance(FAILOVER_TIMEOUT);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertFalse(liveness.needsFailover(ledBy(2)));
    assertEquals(List.of(), liveness.decided(state), "no failover of broker 2 to report");

    // Lost again later: the timeout counts from then, not from the first loss.
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    clock.advance(FAILOVER_TIMEOUT - 1);
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertFalse(liveness.needsFailover(ledBy(2)));
  }

  @Test
  void aBrokerSuspectedByAMajorityOfTheOtherBrokersDataPlaneFailsOverAtOnceAndIsBackWhenNoLongerSuspected() {
    List<BrokerMember> allUp = List.of(up(0, 1), up(1, 1), up(2, 1));
    liveness.refresh(state, allUp);

    assertTrue(liveness.suspected(0, Set.of(2)));
    assertFalse(liveness.suspected(0, Set.of(2)), "the same report again is no change");
    liveness.refresh(state, allUp);
    assertEquals(Set.of(0, 1, 2), liveness.available(), "one of two others is no majority");
    assertFalse(liveness.needsFailover(ledBy(2)));

    clock.advance(100);
    assertTrue(liveness.suspected(1, Set.of(2)));
    liveness.refresh(state, allUp);
    assertEquals(Set.of(0, 1), liveness.available(), "both others suspect it, before the failure detector does");
    assertTrue(liveness.needsFailover(ledBy(2)), "at once, without the failover timeout");
    assertFalse(liveness.needsFailover(ledBy(0)));

    // Its shard gets a new leader: the failover is measured from when the suspicion made it lost.
    clock.advance(400);
    ShardAssignment lost = ledBy(2);
    ControlState promoted = state.apply(new LeaderPromoted(lost.id(), 0, lost.leaderEpoch() + 1, 2));
    assertEquals(List.of(new FailoverDone(2, 1, 400)), liveness.decided(promoted));

    // A broker that hears from it again withdraws its suspicion: it is available once more.
    liveness.suspected(1, Set.of());
    liveness.refresh(promoted, allUp);
    assertEquals(Set.of(0, 1, 2), liveness.available());
  }

  @Test
  void suspicionsFromBrokersThatAreThemselvesUnreachableDoNotCount() {
    liveness.suspected(1, Set.of(0));
    liveness.suspected(2, Set.of(0));
    liveness.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertEquals(Set.of(1), liveness.available(),
        "broker 1, the only reachable other, suspects broker 0: one of one is a majority");

    BrokerLiveness fresh = new BrokerLiveness(PlacementDecisionsTest.SETTINGS, clock,
        LoggerFactory.getLogger(BrokerLivenessTest.class));
    fresh.suspected(2, Set.of(0));
    fresh.refresh(state, List.of(up(0, 1), up(1, 1), unreachable(2, 1)));
    assertTrue(fresh.available().contains(0), "broker 2 is unreachable: its word about broker 0 is not counted");
  }

  @Test
  void onlyUpAndWeaklyUpMembersAreAvailable() {
    liveness.refresh(state, List.of(up(0, 1), new BrokerMember(1, MemberStatus.weaklyUp(), true, incarnation(1, 1)),
        new BrokerMember(2, MemberStatus.leaving(), true, incarnation(2, 1))));
    assertEquals(Set.of(0, 1), liveness.available());
  }

  @Test
  void theFailoverCandidatesAreTheLeaderlessShardsAndThoseOfARestartedLeaderOrEveryShardWhileABrokerIsLost() {
    ShardAssignment leaderless = ledBy(1);
    Map<ShardId, ShardAssignment> shards = new TreeMap<>(state.shards());
    shards.put(leaderless.id(), new ShardAssignment(leaderless.id(), leaderless.replicas(), leaderless.learners(),
        ShardAssignment.NO_LEADER, leaderless.leaderEpoch(), leaderless.incarnation()));
    ControlState withLeaderless = new ControlState(state.brokers(), state.streams(), shards, state.moves(),
        state.recentMoves(), state.paused(), state.tableVersion() + 1, state.nextMoveId(), state.nextProducerId());

    liveness.refresh(withLeaderless, List.of(up(0, 1), up(1, 1), up(2, 1)));
    assertEquals(Set.of(leaderless.id()), candidateIds(withLeaderless), "idle: the leaderless shard only");

    clock.advance(500);
    liveness.refresh(withLeaderless, List.of(up(0, 2), up(1, 1), up(2, 1)));
    ShardAssignment restarted = withLeaderless.shards().get(ledBy(0).id());
    assertEquals(Set.of(leaderless.id(), restarted.id()), candidateIds(withLeaderless));

    liveness.refresh(withLeaderless, List.of(up(0, 2), up(1, 1), unreachable(2, 1)));
    assertEquals(withLeaderless.shards().keySet(), candidateIds(withLeaderless), "a broker lost: every shard");

    // Whatever the scenario, no shard needing a failover round is left out of the candidates.
    clock.advance(FAILOVER_TIMEOUT);
    liveness.refresh(withLeaderless, List.of(up(0, 2), up(1, 1), unreachable(2, 1)));
    for (ShardAssignment a : withLeaderless.shards().values()) {
      assertTrue(!liveness.needsFailover(a) || candidateIds(withLeaderless).contains(a.id()), a.id().toString());
    }
    assertEquals(3, withLeaderless.shards().values().stream().filter(liveness::needsFailover).count(),
        "leaderless, restarted leader, lost leader");
  }

  private Set<ShardId> candidateIds(ControlState s) {
    Set<ShardId> ids = new HashSet<>();
    liveness.failoverCandidates(s).forEach(a -> ids.add(a.id()));
    return ids;
  }

  private ShardAssignment ledBy(int broker) {
    return state.shards().values().stream().filter(a -> a.leader() == broker).findFirst().orElseThrow();
  }

  private static ControlState threeShardsOnThreeBrokers() {
    ControlState brokers = PlacementDecisionsTest.threeBrokers();
    ControlState state = PlacementDecisionsTest.replay(brokers, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(brokers, Set.of(0, 1, 2), "s", 3, 3).events());
    List<Integer> leaders = new ArrayList<>();
    state.shards().values().forEach(a -> leaders.add(a.leader()));
    assertEquals(Set.of(0, 1, 2), Set.copyOf(leaders), "each broker leads one shard: " + leaders);
    return state;
  }

  private static BrokerMember up(int broker, long uid) {
    return new BrokerMember(broker, MemberStatus.up(), true, incarnation(broker, uid));
  }

  private static BrokerMember unreachable(int broker, long uid) {
    return new BrokerMember(broker, MemberStatus.up(), false, incarnation(broker, uid));
  }

  /** Broker {@code broker}'s process number {@code uid}: a restart keeps the address and gets a new uid. */
  private static UniqueAddress incarnation(int broker, long uid) {
    return new UniqueAddress(new Address("pekko", "felix", "127.0.0.1", 2551 + broker), uid);
  }
}
