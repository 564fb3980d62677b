package io.felix.broker.shard;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** Time that moves only when a test advances it, read by replicas through {@link #replicaClock()}; any thread. */
final class ManualClock {
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final AtomicLong millis = new AtomicLong(1_750_000_000_000L);
  private final ReplicaClock replicaClock = new ReplicaClock(nanos::get, millis::get);

  ReplicaClock replicaClock() {
    return replicaClock;
  }

  long nanoTime() {
    return nanos.get();
  }

  long currentTimeMillis() {
    return millis.get();
  }

  void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
    millis.addAndGet(by.toMillis());
  }
}
