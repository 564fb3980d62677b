package io.felix.broker.shard;

import java.util.function.LongSupplier;

/**
 * The time a replica reads: monotonic nanoseconds for deadlines, lags and waits, and wall-clock milliseconds for
 * the timestamps it writes. Injected (see {@link ReplicaContext}) so that tests move time by hand instead of
 * sleeping; {@link #SYSTEM} in production.
 */
record ReplicaClock(LongSupplier nanos, LongSupplier millis) {
  static final ReplicaClock SYSTEM = new ReplicaClock(System::nanoTime, System::currentTimeMillis);

  /** Monotonic; only differences between two readings mean anything. */
  long nanoTime() {
    return nanos.getAsLong();
  }

  long currentTimeMillis() {
    return millis.getAsLong();
  }
}
