package io.felix.broker.log;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * Futures waiting for a log's durable offset to reach an offset. Completed outside the lock, on the thread that
 * advanced the offset (a flusher thread, or the owner at roll and close). Thread-safe.
 */
final class DurableWaiters {
  private record Waiter(long offset, CompletableFuture<Long> future) {}

  private final PriorityQueue<Waiter> waiting = new PriorityQueue<>(Comparator.comparingLong(Waiter::offset));
  private final LongSupplier durableOffset;

  DurableWaiters(LongSupplier durableOffset) {
    this.durableOffset = durableOffset;
  }

  CompletableFuture<Long> await(long offset) {
    CompletableFuture<Long> future = new CompletableFuture<>();
    synchronized (waiting) {
      waiting.add(new Waiter(offset, future));
    }
    completeReached(); // the durable offset may have moved between the caller's check and the add
    return future;
  }

  /** Completes every waiter whose offset the durable offset has reached, with the durable offset. */
  void completeReached() {
    List<Waiter> done = new ArrayList<>();
    long durable;
    synchronized (waiting) {
      durable = durableOffset.getAsLong();
      while (!waiting.isEmpty() && waiting.peek().offset() <= durable) {
        done.add(waiting.poll());
      }
    }
    for (Waiter w : done) {
      w.future().complete(durable);
    }
  }

  /** Fails every waiter for an offset above {@code offset} (-1: all of them). */
  void failAbove(long offset, Exception cause) {
    List<Waiter> failed = new ArrayList<>();
    synchronized (waiting) {
      waiting.removeIf(w -> {
        if (w.offset() > offset) {
          failed.add(w);
          return true;
        }
        return false;
      });
    }
    failed.forEach(w -> w.future().completeExceptionally(cause));
  }
}
