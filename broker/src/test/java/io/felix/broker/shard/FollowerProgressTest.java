package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.ISR_MAX_LAG_RECORDS;
import static io.felix.broker.shard.ReplicaFixture.ISR_MAX_LAG_TIME;
import static io.felix.broker.shard.ReplicaFixture.SETTINGS;
import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * Broker 1 leads replicas 1, 2, 3 with broker 4 as a learner; its epoch starts at offset 10. Each follower's entries
 * come in session 1 of its broker, whose last request is the entry's time unless a test moves it.
 */
class FollowerProgressTest {
  static final long EPOCH_START = 10;
  static final long LAG_NANOS = ISR_MAX_LAG_TIME.toNanos();

  record Change(int broker, boolean joined) {}

  /** A follower broker's session: its last request is set by the test. */
  static final class Session implements SessionLink {
    long lastRequestNanos = Long.MIN_VALUE;
    long sessionId = 1;

    @Override
    public void deliver(long forSession, ReplicaFetchResult result) {}

    @Override
    public long lastRequestNanos(long forSession) {
      return forSession == sessionId ? lastRequestNanos : Long.MIN_VALUE;
    }
  }

  long logEnd = 20;
  long commitOffset = 0;
  long now = 1_000_000_000L;
  final List<Change> changes = new ArrayList<>();
  final Map<Integer, Session> sessions = new HashMap<>();
  final FollowerProgress progress = progress(List.of(1, 2, 3), List.of(4));

  FollowerProgress progress(List<Integer> replicas, List<Integer> learners) {
    return new FollowerProgress(1, new ShardAssignment(SHARD, replicas, learners, 1, 5), EPOCH_START, SETTINGS,
        () -> logEnd, () -> commitOffset, (broker, learner, joined, offset) -> changes.add(new Change(broker, joined)));
  }

  /** An entry of {@code broker} (session 1, fetch id 1) in a request sent at {@code at}. */
  void entry(FollowerProgress p, int broker, long fetchOffset, long stored, long at) {
    Session s = sessions.computeIfAbsent(broker, b -> new Session());
    s.lastRequestNanos = at;
    p.onEntry(broker, s, s.sessionId, 1, fetchOffset, stored, at);
  }

  void entry(int broker, long fetchOffset, long stored, long at) {
    entry(progress, broker, fetchOffset, stored, at);
  }

  @Test
  void theCommitPointIsTheHighestOffsetStoredOnAMajorityOnceThatIsPastTheEpochStart() {
    assertEquals(OptionalLong.empty(), progress.commitPoint(20)); // only the leader holds anything

    entry(2, 10, 10, now); // a majority holds [0, 10): all of it from earlier epochs
    assertEquals(OptionalLong.empty(), progress.commitPoint(20));

    entry(2, 14, 14, now);
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
    assertEquals(OptionalLong.of(12), progress.commitPoint(12)); // the leader's own stored offset counts

    entry(3, 17, 17, now);
    assertEquals(OptionalLong.of(17), progress.commitPoint(20)); // second highest of 20, 14, 17
  }

  @Test
  void aLearnerNeverCountsTowardsTheCommitPointNorTheAllCondition() {
    entry(4, 20, 20, now);
    assertEquals(OptionalLong.empty(), progress.commitPoint(20));

    entry(2, 20, 0, now); // replica 2 in sync (it holds the whole log), nothing stored yet
    assertFalse(progress.inSyncStored(1, now));
    entry(2, 20, 20, now);
    assertTrue(progress.inSyncStored(20, now)); // learner 4 is in sync too, but is not asked
    assertEquals(List.of(new Change(4, true), new Change(2, true)), changes);
  }

  @Test
  void aFiveReplicaSetNeedsThree() {
    FollowerProgress five = progress(List.of(1, 2, 3, 5, 6), List.of());
    entry(five, 2, 15, 15, now);
    assertEquals(OptionalLong.empty(), five.commitPoint(20));
    entry(five, 3, 13, 13, now);
    assertEquals(OptionalLong.of(13), five.commitPoint(20));
  }

  @Test
  void aFollowerHasStoredOnlyWhatItReportsStoredBelowItsFetchOffsetAndNeverLess() {
    entry(2, 14, 18, now); // reports more stored than it holds: counts as 14
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));

    entry(2, 16, 12, now); // an older ack overtaken by a newer one
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
  }

  @Test
  void aFollowerJoinsTheInSyncSetOnlyOnceItHoldsTheCommitOffsetAndCaughtUp() {
    commitOffset = 15;
    entry(2, 14, 14, now);
    assertEquals(List.of(), changes);
    assertTrue(progress.inSyncStored(20, now)); // not in sync: not waited for

    entry(2, 15, 15, now + 1); // below the log end it saw at its previous entry: not caught up then either
    assertEquals(List.of(), changes, "holding the commit offset is not enough while it never caught up");
    entry(2, 20, 20, now + 2);
    assertEquals(List.of(new Change(2, true)), changes);
    logEnd = 22;
    assertFalse(progress.inSyncStored(21, now + 2));
  }

  @Test
  void anIdleFollowerThatHoldsTheWholeLogStaysInSyncWhileItsSessionAsksWithoutAnyEntry() {
    entry(2, 20, 20, now);
    entry(3, 20, 20, now);
    assertEquals(List.of(new Change(2, true), new Change(3, true)), changes);

    // An hour without an entry: broker 2's session keeps asking, broker 3's stopped an isr-max-lag-time ago.
    long later = now + 3_600_000_000_000L;
    sessions.get(2).lastRequestNanos = later - 250_000_000L;
    sessions.get(3).lastRequestNanos = later - LAG_NANOS;
    assertEquals(List.of(1, 2, 3), progress.inSyncReplicas(later));
    assertEquals(List.of(1, 2), progress.inSyncReplicas(later + 1));
    assertEquals(2, progress.inContact(later + 1));
  }

  @Test
  void aFollowerLeavesTheInSyncSetOnceItHasNotCaughtUpForTheLagTimeOrLagsPastTheRecordBound() {
    entry(2, 20, 20, now);
    entry(3, 20, 20, now);

    sessions.get(3).lastRequestNanos = now + 10; // its broker still asks: it held the whole log until the append
    progress.beforeAppend(now + 10);
    logEnd = 30;
    entry(2, 30, 30, now + 20); // 2 catches up; 3 never fetches again (its session asks nothing either)
    progress.refresh(now + 10 + LAG_NANOS); // exactly at the time bound for 3: still in sync
    assertEquals(List.of(new Change(2, true), new Change(3, true)), changes);
    progress.refresh(now + 11 + LAG_NANOS);
    assertEquals(new Change(3, false), changes.get(2));
    assertEquals(3, changes.size());

    long later = now + 12 + LAG_NANOS;
    logEnd = 30 + ISR_MAX_LAG_RECORDS; // exactly at the record bound at its entry: still in sync
    entry(2, 30, 30, later);
    assertEquals(3, changes.size());
    logEnd = 31 + ISR_MAX_LAG_RECORDS;
    assertEquals(List.of(1, 2), progress.inSyncReplicas(later + 5), "the bound counts at its entries");
    entry(2, 30, 30, later + 10);
    assertEquals(new Change(2, false), changes.get(3));
  }

  @Test
  void aFollowerThatKeepsUpWithAGrowingLogStaysCaughtUpAsOfItsPreviousEntry() {
    entry(2, 20, 20, now);
    for (int i = 1; i <= 10; i++) {
      logEnd += 5; // records arrive between its entries: it never holds the log end exactly
      entry(2, logEnd - 5, logEnd - 5, now + i * LAG_NANOS / 2);
    }
    assertEquals(List.of(new Change(2, true)), changes, "it held what the log held at its previous entry");
  }

  @Test
  void aFollowerWhoseSessionEndedIsNoLongerShippedToAndLeavesOnceItsLastRequestIsALagTimeOld() {
    entry(2, 20, 20, now);
    assertTrue(progress.ready(2));
    progress.sessionEnded(2, 1, now + 1000);
    assertFalse(progress.ready(2));
    assertEquals(List.of(1, 2), progress.inSyncReplicas(now + LAG_NANOS));
    assertEquals(List.of(1), progress.inSyncReplicas(now + LAG_NANOS + 1));
  }

  @Test
  void shippingGoesOneAnswerAtATimeAndAnEntryWithANewFetchIdStartsOver() {
    Session s = sessions.computeIfAbsent(2, b -> new Session());
    progress.onEntry(2, s, 1, 7, 12, 12, now);
    assertTrue(progress.ready(2));
    assertEquals(12, progress.shippedTo(2));
    assertEquals(-1, progress.commitSent(2), "its first answer goes whatever it holds");

    progress.shipped(2, 16, 3);
    assertFalse(progress.ready(2), "nothing more until it has appended [12, 16)");
    progress.onEntry(2, s, 1, 7, 12, 12, now + 1); // an ack from before the answer came: same position
    assertFalse(progress.ready(2));
    assertFalse(progress.startsPosition(2, 1, 7));
    progress.onEntry(2, s, 1, 7, 16, 12, now + 2);
    assertTrue(progress.ready(2));
    assertEquals(3, progress.commitSent(2));

    assertTrue(progress.startsPosition(2, 1, 8), "a new fetch id: it truncated or missed records");
    assertTrue(progress.startsPosition(2, 2, 7), "a new session");
    progress.onEntry(2, s, 1, 8, 14, 14, now + 3);
    assertEquals(14, progress.shippedTo(2));
    assertTrue(progress.ready(2));
  }

  @Test
  void inContactCountsTheLeaderAndTheReplicasWhoseSessionAskedWithinTheTimeBound() {
    assertEquals(1, progress.inContact(now));
    entry(2, 0, 0, now);
    entry(4, 0, 0, now); // a learner is not in the replica set
    assertEquals(2, progress.inContact(now + LAG_NANOS));
    assertEquals(1, progress.inContact(now + LAG_NANOS + 1));
  }

  @Test
  void aNewReplicaSetKeepsWhatIsKnownOfThoseWhoStay() {
    entry(2, 14, 14, now);
    entry(3, 16, 16, now);
    assertTrue(progress.tracks(3));

    progress.track(new ShardAssignment(SHARD, List.of(1, 2, 4), List.of(), 1, 5)); // learner 4 replaces 3
    assertFalse(progress.tracks(3));
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
    entry(4, 18, 18, now);
    assertEquals(OptionalLong.of(18), progress.commitPoint(20));
  }
}
