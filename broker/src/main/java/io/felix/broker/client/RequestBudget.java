package io.felix.broker.client;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A budget of request bytes held at once (the broker's, or one connection's). {@link #acquire} completes once the
 * bytes fit; waiters are served in arrival order, so a large frame is not starved by small ones. A reservation
 * larger than the whole budget is clamped to it: it waits until the budget is wholly free and then takes it all.
 *
 * <p>The listener acquires before it handles a frame and does not read its socket while the acquisition waits,
 * which is how a spent budget turns into TCP backpressure on the clients. Thread-safe.
 */
final class RequestBudget {
  private record Waiter(long bytes, CompletableFuture<Long> granted) {}

  private final long capacity;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  private long inUse;

  RequestBudget(long capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("a request budget must be positive, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** Completes with the bytes actually reserved (what {@link #release} must be given) once they fit. */
  CompletionStage<Long> acquire(long bytes) {
    long reserved = Math.min(Math.max(bytes, 0), capacity);
    synchronized (this) {
      if (waiters.isEmpty() && inUse + reserved <= capacity) {
        inUse += reserved;
        return CompletableFuture.completedFuture(reserved);
      }
      CompletableFuture<Long> granted = new CompletableFuture<>();
      waiters.add(new Waiter(reserved, granted));
      return granted;
    }
  }

  void release(long reserved) {
    List<Waiter> admitted = new ArrayList<>();
    synchronized (this) {
      inUse -= reserved;
      while (!waiters.isEmpty() && inUse + waiters.peek().bytes() <= capacity) {
        Waiter w = waiters.poll();
        inUse += w.bytes();
        admitted.add(w);
      }
    }
    admitted.forEach(w -> w.granted().complete(w.bytes())); // outside the lock: completion runs stream callbacks
  }

  synchronized long inUse() {
    return inUse;
  }

  synchronized int waiting() {
    return waiters.size();
  }

  long capacity() {
    return capacity;
  }
}
