package io.felix.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class OutstandingWindowTest {
  @Test
  void aProducerThatFindsTheWindowFullWaitsUntilHalfOfItWasAnswered() throws Exception {
    OutstandingWindow window = new OutstandingWindow(4);
    for (int i = 0; i < 4; i++) {
      assertTrue(window.tryAcquire(0, TimeUnit.MILLISECONDS));
    }
    assertFalse(window.tryAcquire(10, TimeUnit.MILLISECONDS), "full");
    CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return window.tryAcquire(20, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    window.release();
    Thread.sleep(100);
    assertFalse(waiting.isDone(), "three unanswered: above half, still waiting");
    window.release(); // two unanswered: half, the producer goes on
    assertTrue(waiting.get(10, TimeUnit.SECONDS));
    assertEquals(3, window.outstanding());
    assertTrue(window.tryAcquire(0, TimeUnit.MILLISECONDS), "not full: taken at once");
    assertFalse(window.tryAcquire(0, TimeUnit.MILLISECONDS), "full again");
  }

  @Test
  void awaitEmptyReturnsOnceEveryOperationWasAnswered() throws Exception {
    OutstandingWindow window = new OutstandingWindow(10);
    for (int i = 0; i < 3; i++) {
      window.tryAcquire(0, TimeUnit.MILLISECONDS);
    }
    CompletableFuture<Void> empty = CompletableFuture.runAsync(() -> {
      try {
        window.awaitEmpty();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    window.release();
    window.release();
    Thread.sleep(100);
    assertFalse(empty.isDone(), "one unanswered");
    window.release();
    empty.get(10, TimeUnit.SECONDS);
    assertEquals(0, window.outstanding());
  }

  @Test
  void aWindowOfNothingIsRefused() {
    assertEquals("max outstanding must be positive, got 0",
        assertThrows(IllegalArgumentException.class, () -> new OutstandingWindow(0)).getMessage());
  }
}
