package io.felix.broker.kafka;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/** The {@code felix.kafka-listener} section (see reference.conf for what each value is for). */
public record KafkaListenerSettings(
    boolean enabled, int port, String advertisedHost, int advertisedPort, KafkaListenerMode mode, String clusterId,
    int maxFrameSize, int maxInFlight, Duration idleTimeout, int defaultReplicationFactor,
    Duration minSessionTimeout, Duration maxSessionTimeout, Duration maxRebalanceTimeout,
    Duration initialRebalanceDelay) {

  public KafkaListenerSettings {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("felix.kafka-listener.port must be 0..65535, got " + port);
    }
    if (advertisedPort < 0 || advertisedPort > 65535) {
      throw new IllegalArgumentException("felix.kafka-listener.advertised-port must be 0..65535, got "
          + advertisedPort);
    }
    if (maxFrameSize < 1024) {
      throw new IllegalArgumentException("felix.kafka-listener.max-frame-size must be >= 1 KiB, got " + maxFrameSize);
    }
    if (maxInFlight < 1) {
      throw new IllegalArgumentException("felix.kafka-listener.max-in-flight must be >= 1, got " + maxInFlight);
    }
    if (idleTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException("felix.kafka-listener.idle-timeout must be >= 1 s, got " + idleTimeout);
    }
    if (defaultReplicationFactor < 1) {
      throw new IllegalArgumentException("felix.kafka-listener.default-replication-factor must be >= 1, got "
          + defaultReplicationFactor);
    }
    if (minSessionTimeout.isNegative() || minSessionTimeout.compareTo(maxSessionTimeout) > 0) {
      throw new IllegalArgumentException("felix.kafka-listener.min-session-timeout (" + minSessionTimeout
          + ") must be between 0 and max-session-timeout (" + maxSessionTimeout + ")");
    }
    if (maxRebalanceTimeout.isNegative() || maxRebalanceTimeout.isZero()) {
      throw new IllegalArgumentException("felix.kafka-listener.max-rebalance-timeout must be positive");
    }
    if (initialRebalanceDelay.isNegative()) {
      throw new IllegalArgumentException("felix.kafka-listener.initial-rebalance-delay must not be negative");
    }
  }

  public static KafkaListenerSettings from(Config root) {
    Config c = root.getConfig("felix.kafka-listener");
    try {
      long frame = c.getBytes("max-frame-size");
      if (frame > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("felix.kafka-listener.max-frame-size must be below 2 GiB");
      }
      String clusterId = c.getString("cluster-id").isBlank() ? "felix" : c.getString("cluster-id");
      return new KafkaListenerSettings(c.getBoolean("enabled"), c.getInt("port"), c.getString("advertised-host"),
          c.getInt("advertised-port"), KafkaListenerMode.parse(c.getString("mode")), clusterId, (int) frame,
          c.getInt("max-in-flight"), c.getDuration("idle-timeout"), c.getInt("default-replication-factor"),
          c.getDuration("min-session-timeout"), c.getDuration("max-session-timeout"),
          c.getDuration("max-rebalance-timeout"), c.getDuration("initial-rebalance-delay"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("bad felix.kafka-listener setting: " + e.getMessage(), e);
    }
  }
}
