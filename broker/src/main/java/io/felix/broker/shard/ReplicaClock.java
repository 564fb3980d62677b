package io.felix.broker.shard;

/**
 * The time a replica reads: monotonic nanoseconds for deadlines, lags and waits, and wall-clock milliseconds for
 * the timestamps it writes. Injected (see {@link ReplicaContext}) so that tests move time by hand instead of
 * sleeping; {@link #SYSTEM} in production.
 */
interface ReplicaClock {
  ReplicaClock SYSTEM = new ReplicaClock() {
    @Override
    public long nanoTime() {
      return System.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
      return System.currentTimeMillis();
    }
  };

  /** Monotonic; only differences between two readings mean anything. */
  long nanoTime();

  long currentTimeMillis();
}
