package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.append;
import static io.felix.broker.shard.ReplicaFixture.await;
import static io.felix.broker.shard.ReplicaFixture.batchesFrom;
import static io.felix.broker.shard.ReplicaFixture.fetch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.BatchDecoder;
import io.felix.broker.log.EpochStart;
import io.felix.broker.log.LogBatch;
import io.felix.broker.log.ReplicaState;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The leader role alone: broker 1 leads, brokers 2 and 3 follow; their fetches are written by the tests. */
class ShardLeaderTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("ShardLeaderTest");
  static final int LEADER = 1;
  static final int F2 = 2;
  static final int F3 = 3;


  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, LEADER);
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment leading(long epoch) {
    return new ShardAssignment(SHARD, List.of(LEADER, F2, F3), List.of(), LEADER, epoch);
  }

  @Test
  void aNewLeaderOverANonEmptyLogWritesExactlyOneEmptyEpochMarker() {
    append(replica.log, 1, 2); // [0, 6) at epoch 1

    replica.startLeader(leading(2));
    ReplicaStatus status = replica.describe();

    assertEquals(7, status.logEndOffset());
    assertEquals(2, status.lastEpoch());
    assertEquals(List.of(new EpochStart(1, 0), new EpochStart(2, 6)), replica.log.epochStarts());
    BatchDecoder after = replica.log.read(6, 1 << 20).decoder();
    LogBatch marker = after.next();
    assertEquals(6, marker.baseOffset());
    assertEquals(1, marker.recordCount());
    assertEquals(2, marker.leaderEpoch());
    assertEquals(0, marker.payloadLength());
    assertFalse(after.hasNext());
  }

  @Test
  void aNewLeaderOverAnEmptyLogWritesNoMarker() {
    replica.startLeader(leading(2));

    assertEquals(0, replica.describe().logEndOffset());
    assertEquals(List.of(), replica.log.epochStarts());
  }

  @Test
  void commitAdvancesOnlyOnceAMajorityStoresARecordOfTheCurrentEpoch() {
    append(replica.log, 1, 2); // [0, 6) at epoch 1; the marker of epoch 2 goes to 6
    replica.startLeader(leading(2));

    // Every replica stores all of epoch 1: a majority of [0, 6), but none has a record of epoch 2.
    replica.followerFetch(fetch(F2, 2, 6, 1, 6));
    replica.followerFetch(fetch(F3, 2, 6, 1, 6));
    assertEquals(0, replica.describe().commitOffset());

    // One follower stores the marker: with the leader that is a majority at epoch 2, committing everything.
    replica.followerFetch(fetch(F2, 2, 7, 2, 7));
    kit.createTestProbe().awaitAssert(() -> {
      assertEquals(7, replica.describe().commitOffset());
      return null;
    });
  }

  @Test
  void aFetchAtAnOlderEpochIsRefusedAndOneAtANewerEpochFencesTheLeader() throws Exception {
    replica.startLeader(leading(2));

    replica.followerFetch(fetch(F2, 1, 0, -1, 0));
    ReplicaFetchResult stale = replica.sessions.nextFetchResult(F2);
    assertEquals(FetchError.FETCH_EPOCH_MISMATCH, stale.getError());
    assertEquals(2, stale.getLeaderEpoch());
    Response appended = await(replica.produce(Acks.LEADER, 1));
    assertEquals(0, appended.getProduce().getBaseOffset());
    assertEquals(2, appended.getProduce().getLeaderEpoch());

    replica.followerFetch(fetch(F3, 3, 0, -1, 0));
    ReplicaFetchResult newer = replica.sessions.nextFetchResult(F3);
    assertEquals(FetchError.FETCH_EPOCH_MISMATCH, newer.getError());
    assertEquals(2, newer.getLeaderEpoch());
    assertEquals(ReplicaRole.FENCED, replica.describe().role());
    Response refused = await(replica.produce(Acks.LEADER, 1));
    assertEquals(ErrorCode.NOT_LEADER, refused.getError().getCode());
    assertTrue(refused.getError().getNotAppended());
    assertEquals(1, replica.log.logEndOffset());
  }

  @Test
  void aProvisionalLeaderAppendsNothingUntilAFollowerAgreesAndStepsDownWithoutTruncatingOneThatHoldsMore()
      throws Exception {
    // Opened with neither state nor log: a new shard's leader, or one whose directory was wiped.
    replica.initialState = new ReplicaState(ShardAssignment.legacyIncarnation(SHARD.stream()), -1, true);
    replica.startLeader(leading(2));
    Response early = await(replica.produce(Acks.LEADER, 1));
    assertEquals(ErrorCode.NOT_LEADER, early.getError().getCode(), "no append before a majority agrees");
    assertEquals(0, replica.log.logEndOffset());

    // Follower 3 holds 40 records this log lacks: the leader lost its data. It steps down, telling nobody to truncate.
    replica.followerFetch(fetch(F3, 2, 40, 1, 40));
    assertEquals(FetchError.FETCH_NOT_LEADER, replica.sessions.nextFetchResult(F3).getError());
    ReplicaStatus down = replica.describe();
    assertEquals(ReplicaRole.FENCED, down.role());
    assertTrue(down.recovering(), "it vouches for nothing in a failover round");
    assertEquals(0, down.logEndOffset());
  }

  @Test
  void aProvisionalLeaderThatAMajorityAgreesWithTakesAppends() throws Exception {
    replica.initialState = new ReplicaState(ShardAssignment.legacyIncarnation(SHARD.stream()), -1, true);
    replica.startLeader(leading(2));
    replica.followerFetch(fetch(F2, 2, 0, -1, 0)); // a new shard's follower: empty too
    ReplicaStatus agreed = replica.describe();
    assertEquals(ReplicaRole.LEADER, agreed.role());
    assertFalse(agreed.recovering());
    assertEquals(0, await(replica.produce(Acks.LEADER, 1)).getProduce().getBaseOffset());
  }

  @Test
  void aFetchBelowTheLogStartIsToldTheStartAndAnEmptyLogThereIsServedWithoutADivergenceCheck() {
    replica.log.rollAt(140); // two 66-byte batches per segment
    append(replica.log, 1, 6); // [0, 18) in segments at 0, 6, 12
    assertEquals(12, replica.log.deleteSegmentsPastRetention(-1, 0, 0, 18));
    replica.startLeader(leading(2)); // its epoch marker goes to 18

    replica.followerFetch(fetch(F2, 2, 6, 1, 6));
    ReplicaFetchResult below = replica.sessions.nextFetchResult(F2);
    assertEquals(FetchError.FETCH_OFFSET_OUT_OF_RANGE, below.getError());
    assertEquals(12, below.getLeaderLogStartOffset());

    // An empty follower log may start above this log's start (its own retention ran further): it cannot diverge.
    replica.followerFetch(fetch(F2, 2, 15, -1, 15));
    ReplicaFetchResult fromThere = replica.sessions.nextFetchResult(F2);
    assertEquals(FetchError.FETCH_OK, fromThere.getError());
    assertEquals(15, fromThere.getFetchOffset());
    assertEquals(batchesFrom(replica.log, 15), fromThere.getBatches());
  }

  @Test
  void aFetchFromABrokerOutsideTheReplicaSetIsRefused() {
    replica.startLeader(leading(2));

    replica.followerFetch(fetch(9, 2, 0, -1, 0));

    assertEquals(FetchError.FETCH_NOT_LEADER, replica.sessions.nextFetchResult(9).getError());
  }

  @Test
  void eachAcksLevelIsAnsweredWhenItsConditionIsMet() throws Exception {
    leadWithBothFollowersInSync(); // their first fetches are answered at once, empty

    CompletableFuture<Response> quorum = replica.produce(Acks.QUORUM, 1); // [0, 1)
    CompletableFuture<Response> all = replica.produce(Acks.ALL, 1); // [1, 2)
    CompletableFuture<Response> leader = replica.produce(Acks.LEADER, 1); // [2, 3)

    // leader: once the leader's own log has stored the batch, whatever the followers hold.
    assertProduced(2, await(leader));
    replica.describe();
    assertFalse(quorum.isDone());
    assertFalse(all.isDone());

    // quorum: once committed (the leader and one of two followers).
    replica.followerFetch(fetch(F2, 0, 3, 0, 3));
    assertProduced(0, await(quorum));
    assertEquals(3, replica.describe().commitOffset());
    assertFalse(all.isDone());

    // all: once every in-sync follower has stored it too.
    replica.followerFetch(fetch(F3, 0, 3, 0, 3));
    assertProduced(1, await(all));
  }

  @Test
  void aFollowersFirstEntryIsAnsweredAtOnceThenItIsParkedAndTheNextAppendIsPushedToIt() throws Exception {
    replica.startLeader(leading(0));
    replica.describe();
    replica.sessions.drain();
    // The first answer tells the follower the commit offset, so a new replica can vouch for the shard at once.
    replica.followerFetch(fetch(F2, 0, 0, -1, 0));
    ReplicaFetchResult first = replica.sessions.nextFetchResult(F2);
    assertEquals(0, first.getCommitOffset());
    assertTrue(first.getBatches().isEmpty());
    // The same position again (an ack) finds nothing new: parked, no answer and no timer.
    replica.followerFetch(fetch(F2, 0, 0, -1, 0));
    replica.describe();
    assertEquals(List.of(), replica.sessions.drain());
    assertFalse(replica.timers.workRunning, "an idle leader runs no work tick");

    // An append is pushed into the parked follower's session at once; the other follower has no position yet.
    CompletableFuture<Response> produced = replica.produce(Acks.LEADER, 2);
    ReplicaFetchResult pushed = replica.sessions.nextFetchResult(F2);
    assertEquals(0, pushed.getFetchOffset());
    assertEquals(1, pushed.getFetchId());
    assertEquals(batchesFrom(replica.log, 0), pushed.getBatches());
    assertProduced(0, await(produced));

    // Nothing more goes to it until it reports that it appended [0, 2).
    await(replica.produce(Acks.LEADER, 1));
    replica.describe();
    assertEquals(List.of(), replica.sessions.drain());
    replica.followerFetch(fetch(F2, 0, 2, 0, 0));
    ReplicaFetchResult next = replica.sessions.nextFetchResult(F2);
    assertEquals(2, next.getFetchOffset());
    assertEquals(batchesFrom(replica.log, 2), next.getBatches());
  }

  @Test
  void anAnswerForASessionThatEndedIsDroppedAndTheFollowersNextEntryStartsItAnew() throws Exception {
    leadWithBothFollowersInSync();
    replica.describe();
    replica.sessions.drain();
    RecordingSessions.Session session = replica.sessions.session(F2);
    session.sessionId = 2; // its broker started a new session: session 1's answers go nowhere
    await(replica.produce(Acks.LEADER, 1));
    assertEquals(batchesFrom(replica.log, 0), replica.sessions.nextFetchResult(F3).getBatches()); // 3's session lives
    replica.describe();
    assertEquals(List.of(), replica.sessions.drain());

    // Its first entry of session 2 (the same fetch id) starts over at its log end: [0, 1) again.
    replica.tell(new ShardReplica.FollowerFetch(F2, fetch(F2, 0, 0, -1, 0).build(), 2, session));
    ReplicaFetchResult again = replica.sessions.nextFetchResult(F2);
    assertEquals(0, again.getFetchOffset());
    assertEquals(batchesFrom(replica.log, 0), again.getBatches());
  }

  @Test
  void theInSyncSetShrinksWhenAFollowerStopsFetchingAndGrowsBackWhenItCatchesUp() throws Exception {
    leadWithBothFollowersInSync();

    CompletableFuture<Response> first = replica.produce(Acks.ALL, 1); // [0, 1)
    replica.followerFetch(fetch(F2, 0, 1, 0, 1));
    replica.describe();
    assertFalse(first.isDone()); // broker 3 is in sync and has not stored it

    // Broker 3 fetches nothing for longer than the lag bound; broker 2 keeps fetching.
    replica.clock.advance(ReplicaFixture.ISR_MAX_LAG_TIME.plusSeconds(1));
    replica.followerFetch(fetch(F2, 0, 1, 0, 1));
    assertTrue(replica.timers.workRunning, "a produce waits: the work tick runs");
    replica.tell(ShardReplica.Tick.WORK);
    assertProduced(0, await(first)); // all = the in-sync replicas, now the leader and broker 2

    // Broker 3 fetches from the commit offset again: back in the set, so the next batch waits for it.
    replica.followerFetch(fetch(F3, 0, 1, 0, 1));
    CompletableFuture<Response> second = replica.produce(Acks.ALL, 1); // [1, 2)
    replica.followerFetch(fetch(F2, 0, 2, 0, 2));
    assertEquals(2, awaitCommit(2));
    assertFalse(second.isDone());
    replica.followerFetch(fetch(F3, 0, 2, 0, 2));
    assertProduced(1, await(second));
  }

  @Test
  void theLeaderPublishesItsRoleAndInSyncSetWheneverTheyChange() throws Exception {
    leadWithBothFollowersInSync();
    assertPublished(ReplicaRole.LEADER, List.of(LEADER, F2, F3));

    replica.clock.advance(ReplicaFixture.ISR_MAX_LAG_TIME.plusSeconds(1)); // broker 3 stops fetching
    replica.followerFetch(fetch(F2, 0, 0, -1, 0));
    replica.tell(ShardReplica.Tick.WORK);
    assertPublished(ReplicaRole.LEADER, List.of(LEADER, F2));

    replica.followerFetch(fetch(F3, 0, 0, -1, 0)); // caught up again
    assertPublished(ReplicaRole.LEADER, List.of(LEADER, F2, F3));

    TestProbe<ReplicaStatus> fenced = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(1, fenced.getRef()));
    assertEquals(ReplicaRole.FENCED, fenced.receiveMessage().role());
    assertEquals(ReplicaRole.FENCED, replica.published().orElseThrow().role());
  }

  /** What the leader published is its current role and in-sync set, as it describes them itself. */
  private void assertPublished(ReplicaRole role, List<Integer> inSync) {
    ReplicaStatus described = replica.describe();
    assertEquals(role, described.role());
    assertEquals(inSync, described.inSync());
    ReplicaStatus published = replica.published().orElseThrow();
    assertEquals(role, published.role());
    assertEquals(inSync, published.inSync());
    assertEquals(described.promisedEpoch(), published.promisedEpoch());
  }

  @Test
  void aFollowerLaggingPastTheRecordBoundLeavesTheInSyncSet() throws Exception {
    leadWithBothFollowersInSync();

    CompletableFuture<Response> big = replica.produce(Acks.ALL, (int) ReplicaFixture.ISR_MAX_LAG_RECORDS + 1);
    replica.followerFetch(fetch(F2, 0, 101, 0, 101));
    assertEquals(101, awaitCommit(101));
    assertFalse(big.isDone());
    // Broker 3 fetches in time but from 0: 101 records behind, past the bound of 100.
    replica.followerFetch(fetch(F3, 0, 0, -1, 0));
    assertProduced(0, await(big));
  }

  @Test
  void aFencedLeaderRejectsProducesButKeepsServingFollowerFetches() throws Exception {
    replica.startLeader(leading(2));
    CompletableFuture<Response> pending = replica.produce(Acks.QUORUM, 2); // [0, 2), never acknowledged

    TestProbe<ReplicaStatus> fenced = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(3, fenced.getRef()));
    assertEquals(ReplicaRole.FENCED, fenced.receiveMessage().role());
    Response outcomeUnknown = await(pending);
    assertEquals(ErrorCode.TIMEOUT, outcomeUnknown.getError().getCode());
    assertFalse(outcomeUnknown.getError().getNotAppended());
    Response refused = await(replica.produce(Acks.LEADER, 1));
    assertEquals(ErrorCode.NOT_LEADER, refused.getError().getCode());

    replica.followerFetch(fetch(F2, 2, 0, -1, 0));
    ReplicaFetchResult served = replica.sessions.nextFetchResult(F2);
    assertEquals(FetchError.FETCH_OK, served.getError());
    assertEquals(2, served.getLeaderEpoch());
    assertEquals(0, served.getFetchOffset());
    assertEquals(2, served.getLeaderLogEndOffset());
    assertEquals(batchesFrom(replica.log, 0), served.getBatches());
  }

  @Test
  void aDivergingFollowerIsToldWhereItsLastEpochEndsHere() {
    append(replica.log, 1, 2); // [0, 6) at epoch 1
    append(replica.log, 3, 1); // [6, 9) at epoch 3
    replica.startLeader(leading(4)); // marker at 9

    // Broker 2 has epoch 2, which this log never had: it keeps what both hold, up to the end of epoch 1.
    replica.followerFetch(fetch(F2, 4, 12, 2, 12));
    ReplicaFetchResult older = replica.sessions.nextFetchResult(F2);
    assertEquals(FetchError.FETCH_DIVERGING, older.getError());
    assertEquals(1, older.getDivergingEpoch());
    assertEquals(6, older.getDivergingEndOffset());

    // Broker 3 has a longer tail of epoch 3 than this log: epoch 3 ends at 9 here.
    replica.followerFetch(fetch(F3, 4, 12, 3, 12));
    ReplicaFetchResult longer = replica.sessions.nextFetchResult(F3);
    assertEquals(FetchError.FETCH_DIVERGING, longer.getError());
    assertEquals(3, longer.getDivergingEpoch());
    assertEquals(9, longer.getDivergingEndOffset());

    // Its ack before truncating is answered the same and counts for nothing.
    replica.followerFetch(fetch(F2, 4, 12, 2, 12));
    assertEquals(FetchError.FETCH_DIVERGING, replica.sessions.nextFetchResult(F2).getError());
    assertEquals(0, replica.describe().commitOffset());
  }

  /** Leads at epoch 0 with both followers fetching from offset 0: they join the in-sync set. */
  private void leadWithBothFollowersInSync() {
    replica.startLeader(leading(0));
    replica.followerFetch(fetch(F2, 0, 0, -1, 0));
    replica.followerFetch(fetch(F3, 0, 0, -1, 0));
  }

  private static void assertProduced(long baseOffset, Response response) {
    assertFalse(response.hasError(), () -> "expected success, got " + response.getError());
    assertEquals(baseOffset, response.getProduce().getBaseOffset());
  }

  /** The commit offset once it reaches {@code offset} (the leader's own fsync completes asynchronously). */
  private long awaitCommit(long offset) {
    return kit.createTestProbe().awaitAssert(() -> {
      long commit = replica.describe().commitOffset();
      assertEquals(offset, commit);
      return commit;
    });
  }
}
