package io.felix.broker.shard;

import java.time.Duration;

/** Replica timers that only say what they were asked (tests send the ticks themselves). */
final class TestTimers implements ReplicaTimers {
  volatile boolean workRunning;
  volatile boolean housekeepingScheduled;

  @Override
  public void workPending() {
    workRunning = true;
  }

  @Override
  public void workDone() {
    workRunning = false;
  }

  @Override
  public void housekeepingIn(Duration delay) {
    housekeepingScheduled = true;
  }
}
