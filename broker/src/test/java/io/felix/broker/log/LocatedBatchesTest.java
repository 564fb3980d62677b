package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class LocatedBatchesTest {
  private static Segment.BatchStart batch(long base, int records) {
    return new Segment.BatchStart((int) base * 100, base, records, 80);
  }

  @Test
  void aRememberedBatchIsFoundForEveryOffsetItHoldsAndNoOther() {
    LocatedBatches located = new LocatedBatches();
    located.remember(batch(10, 5), located.generation());
    assertNull(located.find(9));
    assertEquals(10, located.find(10).baseOffset());
    assertEquals(10, located.find(14).baseOffset());
    assertNull(located.find(15), "after the batch: not known");
  }

  @Test
  void aBatchLocatedBeforeATruncationIsNotKeptAndATruncationForgetsEveryBatch() {
    LocatedBatches located = new LocatedBatches();
    located.remember(batch(0, 3), located.generation());
    long before = located.generation();
    located.forget();
    assertNull(located.find(1));
    located.remember(batch(3, 3), before); // located from the bytes as they were before the cut
    assertNull(located.find(4));
    assertEquals(0, located.size());
  }

  @Test
  void itHoldsAtMostItsBound() {
    LocatedBatches located = new LocatedBatches();
    for (int i = 0; i < LocatedBatches.MAX_BATCHES + 10; i++) {
      located.remember(batch(2L * i, 2), located.generation());
    }
    assertEquals(LocatedBatches.MAX_BATCHES, located.size());
    assertNull(located.find(2L * LocatedBatches.MAX_BATCHES));
  }
}
