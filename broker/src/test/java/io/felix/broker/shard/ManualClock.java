package io.felix.broker.shard;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link ReplicaClock} that moves only when a test advances it. Readable from any thread. */
final class ManualClock implements ReplicaClock {
  private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
  private final AtomicLong millis = new AtomicLong(1_750_000_000_000L);

  @Override
  public long nanoTime() {
    return nanos.get();
  }

  @Override
  public long currentTimeMillis() {
    return millis.get();
  }

  void advance(Duration by) {
    nanos.addAndGet(by.toNanos());
    millis.addAndGet(by.toMillis());
  }
}
