package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardId;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class OpenRoundTest {
  final AtomicLong clock = new AtomicLong(5_000_000_000L);
  final OpenRound round = new OpenRound(clock::get);

  static ShardId shard(int n) {
    return new ShardId("big", n);
  }

  @Test
  void oneLineWhenTheLastReplicaStartedHasOpenedWithItsCounts() {
    for (int i = 0; i < 3334; i++) {
      round.started(shard(i));
    }
    round.quarantined(12);
    clock.addAndGet(1_800_000_000L);
    for (int i = 0; i < 3333; i++) {
      assertEquals(Optional.empty(), round.opened(shard(i), false));
    }
    assertEquals(Optional.of("opened 3,334 replicas in 1.8 s, 0 failed, 12 quarantined"),
        round.opened(shard(3333), false));
    assertEquals(0, round.pending());
  }

  @Test
  void failuresAndReplicasThatStoppedBeforeTheyOpenedCountAsFailed() {
    round.started(shard(0));
    round.started(shard(1));
    round.started(shard(2));
    assertEquals(Optional.empty(), round.opened(shard(0), true));
    assertEquals(Optional.empty(), round.opened(shard(0), false)); // not pending any more: ignored
    assertEquals(Optional.empty(), round.stopped(shard(1)));
    clock.addAndGet(250_000_000L);
    assertEquals(Optional.of("opened 3 replicas in 0.3 s, 2 failed, 0 quarantined"), round.opened(shard(2), false));
    assertEquals(Optional.empty(), round.stopped(shard(2)), "a replica that opened and stops later is no news");
  }

  @Test
  void aNewRoundStartsItsClockAfterThePreviousOneEnded() {
    round.started(shard(0));
    clock.addAndGet(1_000_000_000L);
    round.opened(shard(0), false);
    clock.addAndGet(60_000_000_000L);
    round.started(shard(1));
    clock.addAndGet(100_000_000L);
    assertEquals(Optional.of("opened 1 replicas in 0.1 s, 0 failed, 0 quarantined"), round.opened(shard(1), false));
  }

  @Test
  void aReplicaStillOpeningGetsOneFencePerEpochAndAnOpenReplicaEveryFence() {
    round.started(shard(0));
    round.started(shard(1));
    assertFalse(round.fenceWaits(shard(0), 2), "the first fence goes to the replica's stash");
    assertTrue(round.fenceWaits(shard(0), 2), "asked again at the same epoch: one already waits");
    assertTrue(round.fenceWaits(shard(0), 1));
    assertFalse(round.fenceWaits(shard(0), 3), "a higher epoch must be adopted too");
    assertTrue(round.fenceWaits(shard(0), 3));

    round.opened(shard(0), false);
    assertFalse(round.fenceWaits(shard(0), 3), "open: it answers every fence at once");
    assertFalse(round.fenceWaits(shard(0), 3));
    assertFalse(round.fenceWaits(shard(7), 2), "not started here");

    assertFalse(round.fenceWaits(shard(1), 2));
    round.stopped(shard(1));
    round.started(shard(1)); // started again after a failure: a new actor, whose stash holds nothing
    assertFalse(round.fenceWaits(shard(1), 2));
  }
}
