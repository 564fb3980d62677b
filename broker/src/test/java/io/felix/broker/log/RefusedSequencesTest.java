package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A broker's memory of the idempotent batches it refused NOT_LEADER, with an injected clock. */
class RefusedSequencesTest {
  private final AtomicLong now = new AtomicLong(1_000);
  private final RefusedSequences refused = new RefusedSequences(now::get);

  @Test
  void theLowestRefusedSequenceOfAProducerIsKeptPerShardAndEpoch() {
    refused.refused("s", 0, new ProducerStamp(7, 0, 10));
    refused.refused("s", 0, new ProducerStamp(7, 0, 4));
    refused.refused("s", 0, new ProducerStamp(7, 0, 12));
    assertEquals(4, refused.lowestRefused("s", 0, new ProducerStamp(7, 0, 20)));
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 1, new ProducerStamp(7, 0, 20)), "other shard");
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 0, new ProducerStamp(7, 1, 20)), "other epoch");
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 0, new ProducerStamp(8, 0, 20)), "other producer");
  }

  @Test
  void aStoredBatchOfTheProducerForgetsItsRefusalForThatShardOnly() {
    refused.refused("s", 0, new ProducerStamp(7, 0, 4));
    refused.refused("s", 1, new ProducerStamp(7, 0, 4));
    refused.stored("s", 0, new ProducerStamp(7, 0, 4));
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 0, new ProducerStamp(7, 0, 9)),
        "the shard knows the producer now");
    assertEquals(4, refused.lowestRefused("s", 1, new ProducerStamp(7, 0, 9)));
  }

  @Test
  void aRefusalIsForgottenTwoMinutesAfterItAndANewOneReplacesAnExpiredLowerOne() {
    refused.refused("s", 0, new ProducerStamp(7, 0, 0));
    now.addAndGet(RefusedSequences.KEPT.toNanos());
    assertEquals(0, refused.lowestRefused("s", 0, new ProducerStamp(7, 0, 3)), "still kept at exactly two minutes");
    now.addAndGet(1);
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 0, new ProducerStamp(7, 0, 3)));
    refused.refused("s", 0, new ProducerStamp(7, 0, 30));
    assertEquals(30, refused.lowestRefused("s", 0, new ProducerStamp(7, 0, 40)));
  }

  @Test
  void batchesWithoutAProducerAreNeverRemembered() {
    refused.refused("s", 0, ProducerStamp.NONE);
    assertEquals(0, refused.size());
    assertEquals(RefusedSequences.NONE, refused.lowestRefused("s", 0, ProducerStamp.NONE));
  }

  @Test
  void sequencesCompareAcrossTheirWrapAtIntegerMaxValue() {
    assertTrue(RefusedSequences.isAfter(3, 0));
    assertFalse(RefusedSequences.isAfter(0, 3));
    assertFalse(RefusedSequences.isAfter(5, 5));
    assertTrue(RefusedSequences.isAfter(2, Integer.MAX_VALUE - 1), "2 follows MAX_VALUE - 1 after the wrap");
    assertFalse(RefusedSequences.isAfter(Integer.MAX_VALUE - 1, 2));
  }
}
