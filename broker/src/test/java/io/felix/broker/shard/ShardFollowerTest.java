package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.append;
import static io.felix.broker.shard.ReplicaFixture.batchesFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.EpochEnd;
import io.felix.broker.log.EpochStart;
import io.felix.broker.log.ShardLog;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The follower role alone (broker 2 following broker 1): divergence and truncation as KIP-101 with KIP-279. The
 * leader's answers are built from a second real log, the way {@link ShardLeader} builds them.
 */
class ShardFollowerTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("ShardFollowerTest");
  static final int LEADER = 1;
  static final int FOLLOWER = 2;

  ShardLog leaderLog;

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, FOLLOWER);
    leaderLog = replica.openOtherLog(tmp.resolve("leader"));
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment following(long epoch) {
    return new ShardAssignment(SHARD, List.of(LEADER, FOLLOWER, 3), List.of(), LEADER, epoch);
  }

  @Test
  void aLongerTailOfAnOlderEpochIsTruncatedToWhereThatEpochEndsOnTheLeaderThenReplaced() {
    append(replica.log, 1, 2); // [0, 6) at epoch 1
    append(replica.log, 2, 2); // [6, 12) at epoch 2: the old leader's uncommitted tail
    append(leaderLog, 1, 2); // [0, 6) at epoch 1
    append(leaderLog, 2, 1); // [6, 9) at epoch 2: the same first batch
    append(leaderLog, 4, 1); // [9, 12) at epoch 4

    replica.startFollower(following(4));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    assertEquals(12, first.getFetchOffset());
    assertEquals(2, first.getLastFetchedEpoch());
    assertEquals(4, first.getLeaderEpoch());

    ReplicaFetchResult diverging = divergingAnswer(first);
    assertEquals(new EpochEnd(2, 9), leaderLog.epochEndFor(2));
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, diverging));
    ReplicaFetch afterTruncation = replica.sessions.nextFetch(LEADER);
    assertEquals(9, afterTruncation.getFetchOffset());
    assertEquals(2, afterTruncation.getLastFetchedEpoch());
    assertEquals(9, replica.log.logEndOffset());
    assertEquals(List.of(new EpochStart(1, 0), new EpochStart(2, 6)), replica.log.epochStarts());

    // The same answer again (resent, reordered) is for a log end this log no longer has: ignored.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, diverging));
    assertEquals(9, replica.describe().logEndOffset());
    assertEquals(List.of(), replica.sessions.drain());

    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(afterTruncation, 9)));
    ReplicaFetch next = replica.sessions.nextFetch(LEADER);
    assertEquals(12, next.getFetchOffset());
    assertEquals(4, next.getLastFetchedEpoch());
    assertEquals(afterTruncation.getFetchId(), next.getFetchId(), "progress of the same position");
    assertEquals(List.of(new EpochStart(1, 0), new EpochStart(2, 6), new EpochStart(4, 9)),
        replica.log.epochStarts());
    assertEquals(batchesFrom(leaderLog, 0), batchesFrom(replica.log, 0));
    assertEquals(9, replica.describe().commitOffset());
  }

  @Test
  void anEpochTheLeaderNeverHadIsTruncatedToWhereBothLastAgree() {
    append(replica.log, 1, 1); // [0, 3) at epoch 1
    append(replica.log, 2, 2); // [3, 9) at epoch 2, which the leader never had
    append(leaderLog, 1, 2); // [0, 6) at epoch 1
    append(leaderLog, 3, 1); // [6, 9) at epoch 3

    replica.startFollower(following(3));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    assertEquals(9, first.getFetchOffset());
    assertEquals(2, first.getLastFetchedEpoch());

    // KIP-279: the leader names its largest epoch at most 2 (epoch 1, ending at 6); this log's epoch 1 ends at 3,
    // so only [0, 3) is known to agree (KIP-101's end offset alone, 6, would keep [3, 6) of epoch 2).
    assertEquals(new EpochEnd(1, 6), leaderLog.epochEndFor(2));
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, divergingAnswer(first)));
    ReplicaFetch afterTruncation = replica.sessions.nextFetch(LEADER);
    assertEquals(3, afterTruncation.getFetchOffset());
    assertEquals(1, afterTruncation.getLastFetchedEpoch());
    assertEquals(List.of(new EpochStart(1, 0)), replica.log.epochStarts());

    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(afterTruncation, 0)));
    ReplicaFetch next = replica.sessions.nextFetch(LEADER);
    assertEquals(9, next.getFetchOffset());
    assertEquals(3, next.getLastFetchedEpoch());
    assertEquals(List.of(new EpochStart(1, 0), new EpochStart(3, 6)), replica.log.epochStarts());
    assertEquals(batchesFrom(leaderLog, 0), batchesFrom(replica.log, 0));
  }

  @Test
  void afterAnAppendItReportsItsLogEndAtOnceAndItsStoredOffsetOnceStoredThenIdlesWithoutATimer() {
    append(leaderLog, 3, 2); // [0, 6) at epoch 3
    replica.startFollower(following(3));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    assertEquals(0, first.getFetchOffset());
    assertEquals(-1, first.getLastFetchedEpoch());
    assertEquals(3, first.getLeaderEpoch());

    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(first, 0)));
    ReplicaFetch appended = replica.sessions.nextFetch(LEADER);
    assertEquals(6, appended.getFetchOffset());
    assertEquals(first.getFetchId(), appended.getFetchId());
    ReplicaFetch ack = appended.getDurableOffset() == 6 ? appended : replica.sessions.nextFetch(LEADER);
    assertEquals(6, ack.getDurableOffset(), "the ack, once the fsync completed");

    // Nothing more: an idle follower sends nothing and runs no work tick.
    replica.describe();
    assertEquals(List.of(), replica.sessions.drain());
    assertFalse(replica.timers.workRunning);
  }

  @Test
  void aFollowerPublishesItsRoleOnceItFollowsAndWhenItIsFencedAboveTheEpochItFollows() {
    replica.startFollower(following(3));
    replica.sessions.nextFetch(LEADER);
    replica.describe(); // a barrier: the follow's last step has run
    ReplicaStatus following = replica.published().orElseThrow();
    assertEquals(ReplicaRole.FOLLOWER, following.role());
    assertEquals(3, following.promisedEpoch());

    TestProbe<ReplicaStatus> fenced = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(5, fenced.getRef()));
    assertEquals(ReplicaRole.FENCED, fenced.receiveMessage().role());
    ReplicaStatus published = replica.published().orElseThrow();
    assertEquals(ReplicaRole.FENCED, published.role());
    assertEquals(5, published.promisedEpoch());
  }

  @Test
  void anAnswerThatDoesNotStartAtTheLogEndTakesANewPositionAndOneForAnOldPositionIsIgnored() {
    append(leaderLog, 3, 3); // [0, 9) at epoch 3
    replica.startFollower(following(3));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);

    // Records from 3 on: [0, 3) went missing (a lost answer). Nothing is appended; a new position from 0 goes.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, answer(first).setFetchOffset(3)
        .setBatches(batchesFrom(leaderLog, 3)).build()));
    ReplicaFetch again = replica.sessions.nextFetch(LEADER);
    assertEquals(0, again.getFetchOffset());
    assertEquals(first.getFetchId() + 1, again.getFetchId());
    assertEquals(0, replica.describe().logEndOffset());

    // An answer for the old position, even one that would fit, is not used.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(first, 0)));
    assertEquals(0, replica.describe().logEndOffset());
    assertEquals(List.of(), replica.sessions.drain());

    // So is an answer from a leader at another epoch.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(again, 0).toBuilder().setLeaderEpoch(2)
        .build()));
    assertEquals(0, replica.describe().logEndOffset());

    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(again, 0)));
    assertEquals(9, replica.sessions.nextFetch(LEADER).getFetchOffset());
    assertEquals(9, replica.describe().logEndOffset());
  }

  @Test
  void aLogEndingBelowTheLeadersStartIsDroppedAndStartsAgainThere() {
    append(replica.log, 1, 2); // [0, 6) at epoch 1: retention on the leader deleted all of it and more
    replica.startFollower(following(3));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    assertEquals(6, first.getFetchOffset());

    // An answer naming a start at or below this log's end (the start moved under it) drops nothing: it asks again.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, answer(first)
        .setError(FetchError.FETCH_OFFSET_OUT_OF_RANGE).setLeaderLogStartOffset(6).build()));
    assertEquals(0, replica.describe().logStartOffset());
    ReplicaFetch again = replica.sessions.nextFetch(LEADER);
    assertEquals(6, again.getFetchOffset());
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, answer(again)
        .setError(FetchError.FETCH_OFFSET_OUT_OF_RANGE).setLeaderLogStartOffset(30).build()));
    ReplicaFetch fromStart = replica.sessions.nextFetch(LEADER);
    assertEquals(30, fromStart.getFetchOffset());
    assertEquals(-1, fromStart.getLastFetchedEpoch());
    ReplicaStatus status = replica.describe();
    assertEquals(30, status.logStartOffset());
    assertEquals(30, status.logEndOffset());
    assertEquals(-1, status.lastEpoch());
  }

  @Test
  void aRefusalOfAnEarlierLogEndOfThePositionMakesItGoAgainFromTheLogEnd() {
    append(leaderLog, 3, 1); // [0, 3) at epoch 3
    replica.startFollower(following(3));
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, batchesAnswer(first, 0)));
    assertEquals(3, replica.sessions.nextFetch(LEADER).getFetchOffset());

    // The leader's retention passed the ack it had for offset 0 and it dropped the position: this log ends at 3.
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, answer(first)
        .setError(FetchError.FETCH_OFFSET_OUT_OF_RANGE).setLeaderLogStartOffset(2).build()));
    ReplicaFetch again = replica.sessions.nextFetch(LEADER);
    while (again.getFetchId() == first.getFetchId()) {
      again = replica.sessions.nextFetch(LEADER); // the ack of the fsync may come first
    }
    assertEquals(3, again.getFetchOffset());
    assertEquals(3, replica.describe().logEndOffset(), "nothing dropped: its log is past the leader's start");
  }

  /** The leader's FETCH_DIVERGING answer: where the fetch's last epoch ends in the leader's log. */
  private ReplicaFetchResult divergingAnswer(ReplicaFetch fetch) {
    EpochEnd agreed = leaderLog.epochEndFor(fetch.getLastFetchedEpoch());
    return answer(fetch).setError(FetchError.FETCH_DIVERGING).setDivergingEpoch(agreed.epoch())
        .setDivergingEndOffset(agreed.endOffset()).build();
  }

  /** The leader's batches after the fetch offset, with {@code commitOffset}. */
  private ReplicaFetchResult batchesAnswer(ReplicaFetch fetch, long commitOffset) {
    return answer(fetch).setBatches(batchesFrom(leaderLog, fetch.getFetchOffset())).setCommitOffset(commitOffset)
        .build();
  }

  private ReplicaFetchResult.Builder answer(ReplicaFetch fetch) {
    return ReplicaFetchResult.newBuilder().setShard(fetch.getShard()).setLeaderEpoch(fetch.getLeaderEpoch())
        .setFetchId(fetch.getFetchId()).setFetchOffset(fetch.getFetchOffset())
        .setLeaderLogEndOffset(leaderLog.logEndOffset());
  }
}
