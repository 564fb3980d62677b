package io.felix.broker.testing;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test sets: the state machines read the time from it, so no test sleeps. */
public final class ManualClock extends Clock {

  private long millis;

  public ManualClock(long millis) {
    this.millis = millis;
  }

  public void set(long millis) {
    this.millis = millis;
  }

  public void advance(long millis) {
    this.millis += millis;
  }

  @Override
  public long millis() {
    return millis;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(millis);
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
