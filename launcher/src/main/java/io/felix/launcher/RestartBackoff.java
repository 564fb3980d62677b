package io.felix.launcher;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long a supervisor waits before it starts an exited broker again: 1 s, doubled after every run shorter than
 * 30 s, up to 30 s, so a broker that cannot start does not spin; a run of 30 s or more starts the count again at 1 s.
 *
 * <pre>
 *   started() ... exited(): run &lt; 30 s   -> wait the current delay, then double it (at most 30 s)
 *                           run &gt;= 30 s  -> wait 1 s, the next delay 2 s
 * </pre>
 */
final class RestartBackoff {
  static final Duration FIRST = Duration.ofSeconds(1);
  static final Duration MAX = Duration.ofSeconds(30);
  /** A run at least this long counts as healthy: the delays start again from {@link #FIRST}. */
  static final Duration HEALTHY_RUN = Duration.ofSeconds(30);

  private final LongSupplier nanoTime;
  private Duration next = FIRST;
  private long startedNanos;

  RestartBackoff(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.startedNanos = nanoTime.getAsLong();
  }

  /** The broker process started now. */
  void started() {
    startedNanos = nanoTime.getAsLong();
  }

  /** The broker process exited now: how long to wait before starting it again. */
  Duration exited() {
    if (nanoTime.getAsLong() - startedNanos >= HEALTHY_RUN.toNanos()) {
      next = FIRST;
    }
    Duration wait = next;
    next = next.multipliedBy(2).compareTo(MAX) > 0 ? MAX : next.multipliedBy(2);
    return wait;
  }
}
