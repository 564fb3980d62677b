package io.felix.broker.client;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/** The {@code felix.client-listener} section (see reference.conf for what each value is for). */
public record ClientListenerSettings(
    int maxFrameSize, int maxInFlight, Duration maxFetchWait, int maxFetchBytes, Duration forwardGrace,
    ClientLimits limits) {

  public ClientListenerSettings {
    if (maxFrameSize < 1024) {
      throw new IllegalArgumentException("felix.client-listener.max-frame-size must be >= 1 KiB, got " + maxFrameSize);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("felix.client-listener.max-in-flight must be >= 1, got " + maxInFlight);
    }
    if (maxFetchWait.isNegative()) {
      throw new IllegalArgumentException("felix.client-listener.max-fetch-wait must not be negative");
    }
    if (maxFetchBytes < 1) {
      throw new IllegalArgumentException("felix.client-listener.max-fetch-bytes must be positive");
    }
    if (limits.idleTimeout().compareTo(maxFetchWait) <= 0) {
      throw new IllegalArgumentException("felix.client-listener.idle-timeout (" + limits.idleTimeout()
          + ") must exceed max-fetch-wait (" + maxFetchWait + "): a client waiting for a long poll sends nothing");
    }
    if (forwardGrace.isNegative()) {
      throw new IllegalArgumentException("felix.client-listener.forward-grace must not be negative");
    }
  }

  public static ClientListenerSettings from(Config root) {
    Config c = root.getConfig("felix.client-listener");
    try {
      long frame = c.getBytes("max-frame-size");
      long fetch = c.getBytes("max-fetch-bytes");
      if (frame > Integer.MAX_VALUE || fetch > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("felix.client-listener sizes must be below 2 GiB");
      }
      return new ClientListenerSettings(
          (int) frame, c.getInt("max-in-flight"), c.getDuration("max-fetch-wait"), (int) fetch,
          c.getDuration("forward-grace"), ClientLimits.from(c));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("bad felix.client-listener setting: " + e.getMessage(), e);
    }
  }
}
