package io.felix.broker.control;

import io.felix.broker.testing.ManualClock;
import static io.felix.broker.control.TestReplicas.holding;
import static io.felix.broker.control.TestReplicas.notHosted;
import static io.felix.broker.control.TestReplicas.promised;
import static io.felix.broker.control.TestReplicas.recovering;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Fence first, then choose: a failover round fences every reachable replica at epoch + 1 and promotes, once a
 * majority answered that fence, a replica with the greatest (last epoch, log end) - never before a majority
 * answered.
 */
class FailoverRoundsTest {

  private static final ShardId SHARD = new ShardId("s", 0);
  private static final long REPLICA_TIMEOUT = PlacementDecisionsTest.SETTINGS.replicaTimeout().toMillis();

  private final ManualClock clock = new ManualClock(50_000);
  private final RecordingProbe probe = new RecordingProbe();
  private final FailoverRounds rounds = new FailoverRounds(new ProbeContext(PlacementDecisionsTest.SETTINGS,
      probe, clock, LoggerFactory.getLogger(FailoverRoundsTest.class)));
  /** One shard on three brokers at epoch 1. */
  private final ControlState state = oneShardOnThreeBrokers();
  private final ShardAssignment shard = state.shards().get(SHARD);
  private final int lost = shard.leader();
  private final List<Integer> survivors = shard.replicas().stream().filter(b -> b != lost).toList();
  private final Set<Integer> available = Set.copyOf(survivors);
  private final Set<Integer> everyone = Set.copyOf(shard.replicas());

  @Test
  void aRoundFencesEveryReachableReplicaAtTheNextEpoch() {
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of("fence " + survivors.get(0) + " s/0 @2", "fence " + survivors.get(1) + " s/0 @2"),
        probe.drain());

    // The round is under way: no fence is sent twice before the replica timeout.
    clock.advance(REPLICA_TIMEOUT);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of(), probe.drain());
  }

  @Test
  void noPromotionBeforeAQuorumAnsweredTheFenceAtTheRoundsEpochThenTheReplicaHoldingMostIsPromoted() {
    rounds.progress(state, available, Set.of(SHARD));

    // One answer of three replicas is no majority; an answer to a fence at another epoch, or a replica that
    // is not hosted, does not count.
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 3);
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    rounds.answered(notHosted(SHARD, survivors.get(1)), 2);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));

    // The second survivor holds more of epoch 1: it holds every committed record and is promoted at epoch 2.
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    clock.advance(10);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  /** A round fenced both survivors, only the first answered (vouching), and the replica timeout has passed. */
  private void firstSurvivorAnswersARoundPastItsTimeout() {
    rounds.progress(state, available, Set.of(SHARD));
    probe.drain();
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    clock.advance(REPLICA_TIMEOUT + 1);
  }

  /** A round started while the cluster starts, answered by both survivors; the leader that restarted is silent. */
  private void survivorsAnswerWhileTheClusterStarts() {
    rounds.progress(state, everyone, Set.of(SHARD), true);
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    clock.advance(10);
  }

  @Test
  void whileTheClusterStartsARoundPromotesOnlyOnceEveryReplicaAnsweredEvenTheOneThatLed() {
    survivorsAnswerWhileTheClusterStarts();
    assertEquals(List.of(), rounds.progress(state, everyone, Set.of(SHARD), true),
        "a majority answered, but the leader that restarted has not yet: no promotion while the cluster starts");

    rounds.answered(holding(SHARD, lost, 1, 40), 2);
    clock.advance(10);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, everyone, Set.of(SHARD), true));
  }

  @Test
  void whileTheClusterStartsARoundFencesNothingBeforeEveryReplicasBrokerIsAvailable() {
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD), true));
    clock.advance(REPLICA_TIMEOUT + 1);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD), true));
    assertEquals(List.of(), probe.drain(), "the restarted leader's broker is not up yet");

    rounds.progress(state, everyone, Set.of(SHARD), true);
    assertEquals(3, probe.drain().size(), "every replica fenced once its broker is up");
  }

  @Test
  void theRoundsTellWhichBrokersTheyWaitFor() {
    rounds.progress(state, everyone, Set.of(SHARD), true);
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    rounds.answered(notHosted(SHARD, survivors.get(1)), 2);
    assertEquals("1 rounds under way; replicas without an answer per broker {" + lost + "=1}, answered without"
        + " vouching per broker {" + survivors.get(1) + "=1}", rounds.waitingFor(state));
  }

  @Test
  void onceTheClusterStartGraceIsOverAMajorityOfAnswersPromotesAgain() {
    survivorsAnswerWhileTheClusterStarts();
    assertEquals(List.of(), rounds.progress(state, everyone, Set.of(SHARD), true));

    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, everyone, Set.of(SHARD), false));
  }

  @Test
  void aLaterLastEpochWinsOverALongerLog() {
    rounds.progress(state, available, Set.of(SHARD));
    // The longer log ends in a tail of epoch 0 that was never committed; the other holds epoch 1's records.
    rounds.answered(holding(SHARD, survivors.get(0), 0, 90), 2);
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);

    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  @Test
  void anAnswerFromBeforeTheRoundIsIgnored() {
    // A fence at epoch 2 answered before this round began (an earlier singleton's round, say) proves nothing now.
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    rounds.progress(state, available, Set.of(SHARD));
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));

    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  @Test
  void aRecoveringReplicaCountsTowardsNoQuorumAndIsNeverPromoted() {
    rounds.progress(state, available, Set.of(SHARD));
    // The replica that lost its data answers, with the longest log it has copied so far: it vouches for nothing.
    rounds.answered(recovering(SHARD, survivors.get(0), 80), 2);
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)), "one sound answer is no majority");

    // The lost leader comes back with its log: with it, two sound replicas answered; the better one is promoted.
    rounds.answered(holding(SHARD, lost, 1, 50), 2);
    assertEquals(List.of(new LeaderPromoted(SHARD, lost, 2, lost)), rounds.progress(state, everyone, Set.of(SHARD)));
  }

  @Test
  void aNewShardWhoseEveryReplicaIsEmptyAndRecoveringGetsALeaderOnceEveryReplicaAnswered() {
    // The first leader died before its followers' first fetch: neither follower can vouch for anything yet.
    rounds.progress(state, available, Set.of(SHARD));
    rounds.answered(recovering(SHARD, survivors.get(0), 0), 2);
    rounds.answered(recovering(SHARD, survivors.get(1), 0), 2);
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)),
        "the lost leader may come back holding records: wait for it");

    // It comes back empty too: no record is held anywhere, so one replica is promoted instead of none for ever.
    rounds.answered(recovering(SHARD, lost, 0), 2);
    List<PlacementEvent> events = rounds.progress(state, everyone, Set.of(SHARD));
    assertEquals(1, events.size());
    LeaderPromoted promoted = (LeaderPromoted) events.get(0);
    assertEquals(2, promoted.epoch());
    assertTrue(shard.replicas().contains(promoted.leader()), "promoted " + promoted);
  }

  @Test
  void aNewShardsFirstLeaderThatTookWritesIsPromotedAgainOnceEveryReplicaAnsweredAndTheOthersHoldNothing() {
    // Broker `lost` led epoch 1 and appended a record its followers never fetched; it restarted (the round fences
    // it too). The followers never caught up with a leader: recovering, empty. No majority can vouch, yet every
    // replica answered and only the old leader holds anything: waiting would leave the shard leaderless for ever.
    rounds.progress(state, everyone, Set.of(SHARD));
    rounds.answered(recovering(SHARD, survivors.get(0), 0), 2);
    rounds.answered(holding(SHARD, lost, 1, 1), 2);
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, everyone, Set.of(SHARD)),
        "a replica has not answered yet: it might hold what the others lack");

    rounds.answered(recovering(SHARD, survivors.get(1), 0), 2);
    clock.advance(10);
    assertEquals(List.of(new LeaderPromoted(SHARD, lost, 2, lost)), rounds.progress(state, everyone, Set.of(SHARD)));
  }

  @Test
  void aRecoveringReplicaHoldingRecordsKeepsAReplicaWithoutAMajorityFromBeingPromoted() {
    rounds.progress(state, everyone, Set.of(SHARD));
    rounds.answered(recovering(SHARD, survivors.get(0), 0), 2);
    rounds.answered(recovering(SHARD, survivors.get(1), 7), 2);
    rounds.answered(holding(SHARD, lost, 1, 1), 2);
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, everyone, Set.of(SHARD)),
        "a recovering replica that holds records may hold what the old leader lacks: no promotion");
  }

  @Test
  void everyReplicaRecoveringIsNoQuorumWhenOneOfThemHoldsRecords() {
    rounds.progress(state, Set.copyOf(shard.replicas()), Set.of(SHARD));
    rounds.answered(recovering(SHARD, survivors.get(0), 0), 2);
    rounds.answered(recovering(SHARD, survivors.get(1), 0), 2);
    rounds.answered(recovering(SHARD, lost, 30), 2); // copied part of a leader's log: committed records are missing
    clock.advance(10);
    assertEquals(List.of(), rounds.progress(state, Set.copyOf(shard.replicas()), Set.of(SHARD)));
  }

  @Test
  void aRoundRestartsAboveTheHighestEpochAReplicaReportsPromising() {
    rounds.progress(state, available, Set.of(SHARD));
    probe.drain();
    // A survivor had promised epoch 4 (a round of an earlier singleton, never persisted): fencing at 2 cannot work.
    rounds.answered(promised(SHARD, survivors.get(0), 1, 40, 4), 2);
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)), "no promotion at epoch 2");
    assertEquals(List.of("fence " + survivors.get(0) + " s/0 @5", "fence " + survivors.get(1) + " s/0 @5"),
        probe.drain(), "the round starts again above the reported promise");

    rounds.answered(promised(SHARD, survivors.get(0), 1, 40, 5), 5);
    rounds.answered(promised(SHARD, survivors.get(1), 1, 45, 5), 5);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 5, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  @Test
  void aRoundWithoutAQuorumAfterTheReplicaTimeoutKeepsTheAnswersThatVouchAndFencesOnlyTheOthersAgain() {
    firstSurvivorAnswersARoundPastItsTimeout();
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of("fence " + survivors.get(1) + " s/0 @2"), probe.drain(), "the silent replica only");

    // The first answer still counts: with the second one the round has its majority.
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  @Test
  void aRoundAsksAgainAfterTheReplicaTimeoutThenTwiceAsLongEachTimeUpToFourTimes() {
    firstSurvivorAnswersARoundPastItsTimeout();
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of("fence " + survivors.get(1) + " s/0 @2"), probe.drain(), "after one replica timeout");
    for (long times : new long[] {2, 4, 4, 4}) {
      clock.advance(times * REPLICA_TIMEOUT);
      rounds.progress(state, available, Set.of(SHARD));
      assertEquals(List.of(), probe.drain(), "not before " + times + " replica timeouts");
      clock.advance(1);
      rounds.progress(state, available, Set.of(SHARD));
      assertEquals(List.of("fence " + survivors.get(1) + " s/0 @2"), probe.drain(),
          "after " + times + " replica timeouts");
    }
  }

  @Test
  void askingAgainDropsTheAnswersOfBrokersNoLongerAvailableAndThoseThatDidNotVouch() {
    firstSurvivorAnswersARoundPastItsTimeout();
    rounds.answered(notHosted(SHARD, survivors.get(1)), 2);

    // The first survivor's broker went away (it may restart with less than it answered); the second one vouched
    // for nothing: both are asked again once they can be.
    assertEquals(List.of(), rounds.progress(state, Set.of(survivors.get(1)), Set.of(SHARD)));
    assertEquals(List.of("fence " + survivors.get(1) + " s/0 @2"), probe.drain());
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)), "one answer kept: no majority");

    clock.advance(REPLICA_TIMEOUT + 1);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of(), probe.drain(), "asked again once: the next fence waits twice the replica timeout");
    clock.advance(REPLICA_TIMEOUT);
    assertEquals(List.of(), rounds.progress(state, available, Set.of(SHARD)));
    assertEquals(List.of("fence " + survivors.get(0) + " s/0 @2"), probe.drain());
    rounds.answered(holding(SHARD, survivors.get(0), 1, 30), 2);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)),
        rounds.progress(state, available, Set.of(SHARD)));
  }

  @Test
  void aRoundThatFencedGoesOnWhenItsLeaderComesBackAndEndsWithALeaderAtItsEpoch() {
    rounds.progress(state, available, Set.of(SHARD));
    assertEquals(2, probe.drain().size());
    rounds.answered(holding(SHARD, survivors.get(0), 1, 40), 2);
    // The leader came back before a majority answered: the survivors promised epoch 2 and follow no leader below it,
    // so the round goes on although the shard is no longer due.
    Set<Integer> all = Set.of(0, 1, 2);
    assertEquals(Set.of(SHARD), rounds.unfinished(state));
    assertEquals(List.of(), rounds.progress(state, all, Set.of()));
    rounds.answered(holding(SHARD, survivors.get(1), 1, 45), 2);
    clock.advance(1);
    assertEquals(List.of(new LeaderPromoted(SHARD, survivors.get(1), 2, lost)), rounds.progress(state, all, Set.of()));
    assertEquals(List.of(), probe.drain(), "nothing fenced again");
  }

  @Test
  void aRoundIsDroppedOnceItsShardHasALeaderAtItsEpochOrAbove() {
    rounds.progress(state, available, Set.of(SHARD));
    ControlState promoted = PlacementDecisionsTest.replay(state,
        List.of(new LeaderPromoted(SHARD, survivors.get(0), 2, lost)));
    assertEquals(Set.of(), rounds.unfinished(promoted));
    assertEquals(List.of(), rounds.progress(promoted, Set.of(0, 1, 2), Set.of()));
    probe.drain();

    // Due again later: a new round above the new leader's epoch, with fences sent anew.
    assertEquals(List.of(), rounds.progress(promoted, available, Set.of(SHARD)));
    assertEquals(2, probe.drain().size());
  }

  @Test
  void aRestartedLeaderIsFencedWithTheOthersAndChosenAgainAtANewEpochWhenItHoldsMost() {
    Set<Integer> all = Set.of(0, 1, 2);
    int restarted = lost;
    int other = survivors.get(0);

    // Never lost for the failover timeout, but restarted: every replica is fenced at once.
    assertEquals(List.of(), rounds.progress(state, all, Set.of(SHARD)));
    assertEquals(shard.replicas().stream().map(b -> "fence " + b + " s/0 @2").toList(), probe.drain());

    rounds.answered(holding(SHARD, restarted, 1, 50), 2);
    rounds.answered(holding(SHARD, other, 1, 45), 2);
    clock.advance(1);
    assertEquals(List.of(new LeaderPromoted(SHARD, restarted, 2, restarted)),
        rounds.progress(state, all, Set.of(SHARD)));
  }

  @Test
  void theShardsPromotedInOnePassComeInShardOrder() {
    ControlState brokers = PlacementDecisionsTest.threeBrokers();
    ControlState many = PlacementDecisionsTest.replay(brokers, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(brokers, Set.of(0, 1, 2), "s", 60, 3).events());
    Set<ShardId> ledByZero = many.shards().values().stream().filter(a -> a.leader() == 0).map(ShardAssignment::id)
        .collect(java.util.stream.Collectors.toSet());
    assertTrue(ledByZero.size() >= 10, "broker 0 leads " + ledByZero.size() + " of the 60 shards");
    Set<Integer> survivingBrokers = Set.of(1, 2);
    rounds.progress(many, survivingBrokers, ledByZero);
    for (ShardId id : ledByZero) {
      for (int broker : survivingBrokers) {
        rounds.answered(holding(id, broker, 1, 40), 2);
      }
    }
    clock.advance(10);
    List<ShardId> promoted = rounds.progress(many, survivingBrokers, ledByZero).stream()
        .map(e -> ((LeaderPromoted) e).shard()).toList();
    assertEquals(ledByZero.stream().sorted().toList(), promoted);
  }

  static ControlState oneShardOnThreeBrokers() {
    ControlState brokers = PlacementDecisionsTest.threeBrokers();
    return PlacementDecisionsTest.replay(brokers, new PlacementDecisions(PlacementDecisionsTest.SETTINGS)
        .createStream(brokers, Set.of(0, 1, 2), "s", 1, 3).events());
  }
}
