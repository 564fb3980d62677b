package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.ISR_MAX_LAG_RECORDS;
import static io.felix.broker.shard.ReplicaFixture.ISR_MAX_LAG_TIME;
import static io.felix.broker.shard.ReplicaFixture.SETTINGS;
import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.replication.ReplicaFetch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** Broker 1 leads replicas 1, 2, 3 with broker 4 as a learner; its epoch starts at offset 10. */
class FollowerProgressTest {
  static final long EPOCH_START = 10;
  static final long LAG_NANOS = ISR_MAX_LAG_TIME.toNanos();

  record Change(int broker, boolean joined) {}

  long logEnd = 20;
  long commitOffset = 0;
  long now = 1_000_000_000L;
  final List<Change> changes = new ArrayList<>();
  final FollowerProgress progress = progress(List.of(1, 2, 3), List.of(4));

  FollowerProgress progress(List<Integer> replicas, List<Integer> learners) {
    return new FollowerProgress(1, new ShardAssignment(SHARD, replicas, learners, 1, 5), EPOCH_START, SETTINGS,
        () -> logEnd, () -> commitOffset, (broker, learner, joined, offset) -> changes.add(new Change(broker, joined)));
  }

  @Test
  void theCommitPointIsTheHighestOffsetStoredOnAMajorityOnceThatIsPastTheEpochStart() {
    assertEquals(OptionalLong.empty(), progress.commitPoint(20)); // only the leader holds anything

    progress.onFetch(2, 10, 10, now); // a majority holds [0, 10): all of it from earlier epochs
    assertEquals(OptionalLong.empty(), progress.commitPoint(20));

    progress.onFetch(2, 14, 14, now);
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
    assertEquals(OptionalLong.of(12), progress.commitPoint(12)); // the leader's own stored offset counts

    progress.onFetch(3, 17, 17, now);
    assertEquals(OptionalLong.of(17), progress.commitPoint(20)); // second highest of 20, 14, 17
  }

  @Test
  void aLearnerNeverCountsTowardsTheCommitPointNorTheAllCondition() {
    progress.onFetch(4, 20, 20, now);
    assertEquals(OptionalLong.empty(), progress.commitPoint(20));

    progress.onFetch(2, 0, 0, now); // replica 2 in sync, nothing stored
    assertFalse(progress.inSyncStored(1));
    progress.onFetch(2, 20, 20, now);
    assertTrue(progress.inSyncStored(20)); // learner 4 is in sync too, but is not asked
    assertEquals(List.of(new Change(4, true), new Change(2, true)), changes);
  }

  @Test
  void aFiveReplicaSetNeedsThree() {
    FollowerProgress five = progress(List.of(1, 2, 3, 5, 6), List.of());
    five.onFetch(2, 15, 15, now);
    assertEquals(OptionalLong.empty(), five.commitPoint(20));
    five.onFetch(3, 13, 13, now);
    assertEquals(OptionalLong.of(13), five.commitPoint(20));
  }

  @Test
  void aFollowerHasStoredOnlyWhatItReportsStoredBelowItsFetchOffsetAndNeverLess() {
    progress.onFetch(2, 14, 18, now); // reports more stored than it holds: counts as 14
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));

    progress.onFetch(2, 16, 12, now); // an older ack overtaken by a newer one
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
  }

  @Test
  void aFollowerJoinsTheInSyncSetOnlyOnceCaughtUpWithTheCommitOffset() {
    commitOffset = 15;
    progress.onFetch(2, 14, 14, now);
    assertEquals(List.of(), changes);
    assertTrue(progress.inSyncStored(20)); // not in sync: not waited for

    progress.onFetch(2, 15, 15, now);
    assertEquals(List.of(new Change(2, true)), changes);
    assertFalse(progress.inSyncStored(16));
  }

  @Test
  void aFollowerLeavesTheInSyncSetPastEitherLagBound() {
    progress.onFetch(2, 0, 0, now);
    progress.onFetch(3, 0, 0, now);

    progress.onTick(now + LAG_NANOS); // exactly at the time bound: still in sync
    assertEquals(List.of(new Change(2, true), new Change(3, true)), changes);

    progress.onFetch(2, 0, 0, now + LAG_NANOS);
    progress.onTick(now + LAG_NANOS + 1);
    assertEquals(new Change(3, false), changes.get(2)); // 3 last fetched one lag bound and 1 ns ago
    assertEquals(3, changes.size());

    logEnd = ISR_MAX_LAG_RECORDS; // exactly at the record bound: still in sync
    progress.onFetch(2, 0, 0, now + LAG_NANOS + 2);
    assertEquals(3, changes.size());
    logEnd = ISR_MAX_LAG_RECORDS + 1;
    progress.onFetch(2, 0, 0, now + LAG_NANOS + 3);
    assertEquals(new Change(2, false), changes.get(3));
  }

  @Test
  void inContactCountsTheLeaderAndTheReplicasThatFetchedWithinTheTimeBound() {
    assertEquals(1, progress.inContact(now));
    progress.onFetch(2, 0, 0, now);
    progress.onFetch(4, 0, 0, now); // a learner is not in the replica set
    assertEquals(2, progress.inContact(now + LAG_NANOS));
    assertEquals(1, progress.inContact(now + LAG_NANOS + 1));
  }

  @Test
  void heldFetchesAreReleasedOnceWhenDueOrAllAtOnce() {
    ReplicaFetch f2 = ReplicaFixture.fetch(2, 5, 20, 5, 20).build();
    ReplicaFetch f3 = ReplicaFixture.fetch(3, 5, 20, 5, 20).build();
    progress.hold(2, f2, now);
    progress.hold(3, f3, now + 100);

    assertEquals(Map.of(), progress.releaseHeldLongerThan(500, now + 499));
    assertEquals(Map.of(2, f2), progress.releaseHeldLongerThan(500, now + 500));
    assertEquals(Map.of(3, f3), progress.releaseAllHeld());
    assertEquals(Map.of(), progress.releaseAllHeld());

    progress.hold(2, f2, now);
    progress.release(2);
    assertEquals(Map.of(), progress.releaseAllHeld());
  }

  @Test
  void aNewReplicaSetKeepsWhatIsKnownOfThoseWhoStay() {
    progress.onFetch(2, 14, 14, now);
    progress.onFetch(3, 16, 16, now);
    assertTrue(progress.tracks(3));

    progress.track(new ShardAssignment(SHARD, List.of(1, 2, 4), List.of(), 1, 5)); // learner 4 replaces 3
    assertFalse(progress.tracks(3));
    assertEquals(OptionalLong.of(14), progress.commitPoint(20));
    progress.onFetch(4, 18, 18, now);
    assertEquals(OptionalLong.of(18), progress.commitPoint(20));
  }
}
