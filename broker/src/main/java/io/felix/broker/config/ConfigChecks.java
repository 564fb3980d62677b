package io.felix.broker.config;

import com.typesafe.config.ConfigException;
import java.time.Duration;

/**
 * The checks every settings record applies to its values, each failing with a {@link ConfigException.BadValue}
 * that names the key, so that a bad config value stops the broker at start with a message an operator can act on.
 */
public final class ConfigChecks {

  private ConfigChecks() {}

  public static void positive(String key, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new ConfigException.BadValue(key, "must be positive, got " + value);
    }
  }

  public static void atLeast(String key, long value, long min) {
    if (value < min) {
      throw new ConfigException.BadValue(key, "must be >= " + min + ", got " + value);
    }
  }

  /** A TCP port; 0 asks the operating system for a free one. */
  public static void port(String key, int port) {
    if (port < 0 || port > 65535) {
      throw new ConfigException.BadValue(key, "must be within 0..65535, got " + port);
    }
  }
}
