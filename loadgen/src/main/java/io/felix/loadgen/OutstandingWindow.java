package io.felix.loadgen;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One producer thread's bound on its unanswered operations. A producer that finds the window full sleeps until
 * half of it has been answered, then issues operations until it is full again: one wake-up per half window. A
 * {@link java.util.concurrent.Semaphore} wakes the waiting producer on every answer, and at a hundred thousand
 * answers a second those wake-ups took CPU from the brokers sharing the machine. Acquired by one thread (the
 * producer), released by any.
 */
final class OutstandingWindow {
  private final int max;
  private final int lowWater;
  private final AtomicInteger outstanding = new AtomicInteger();
  private final Object answered = new Object();
  /** The window filled up and has not been half answered since; read and written by the acquiring thread only. */
  private boolean full;

  OutstandingWindow(int max) {
    if (max <= 0) {
      throw new IllegalArgumentException("max outstanding must be positive, got " + max);
    }
    this.max = max;
    this.lowWater = max / 2;
  }

  /**
   * Takes a place: at once until the window fills up, then once half of it was answered; false after {@code timeout}.
   */
  boolean tryAcquire(long timeout, TimeUnit unit) throws InterruptedException {
    if (full) {
      if (!awaitAtMost(lowWater, unit.toNanos(timeout))) {
        return false;
      }
      full = false;
    }
    full = outstanding.incrementAndGet() >= max;
    return true;
  }

  /** An operation was answered. */
  void release() {
    int left = outstanding.decrementAndGet();
    if (left == lowWater || left == 0) {
      synchronized (answered) {
        answered.notifyAll();
      }
    }
  }

  /** Waits until every operation taken was answered. */
  void awaitEmpty() throws InterruptedException {
    awaitAtMost(0, Long.MAX_VALUE);
  }

  int outstanding() {
    return outstanding.get();
  }

  private boolean awaitAtMost(int count, long timeoutNanos) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    synchronized (answered) {
      while (outstanding.get() > count) {
        long left = timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(answered, Math.min(left, TimeUnit.SECONDS.toNanos(1)));
      }
      return true;
    }
  }
}
