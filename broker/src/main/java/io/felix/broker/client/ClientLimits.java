package io.felix.broker.client;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The resource limits of the client listener (the second half of {@code felix.client-listener}; see reference.conf):
 * request bytes held by the broker and by one connection, connections in all and per address, the idle timeout and
 * the bounds of a Metadata request and answer.
 */
public record ClientLimits(
    long maxQueuedRequestBytes, long maxInFlightBytesPerConnection, int maxConnections,
    int maxConnectionsPerAddress, Duration idleTimeout, int maxMetadataStreams, int maxMetadataResponseBytes) {

  public ClientLimits {
    positive("max-queued-request-bytes", maxQueuedRequestBytes);
    positive("max-in-flight-bytes-per-connection", maxInFlightBytesPerConnection);
    positive("max-connections", maxConnections);
    positive("max-connections-per-address", maxConnectionsPerAddress);
    positive("max-metadata-streams", maxMetadataStreams);
    positive("max-metadata-response-bytes", maxMetadataResponseBytes);
    if (idleTimeout.isNegative() || idleTimeout.isZero()) {
      throw new IllegalArgumentException("felix.client-listener.idle-timeout must be positive, got " + idleTimeout);
    }
    if (maxInFlightBytesPerConnection > maxQueuedRequestBytes) {
      throw new IllegalArgumentException("felix.client-listener.max-in-flight-bytes-per-connection ("
          + maxInFlightBytesPerConnection + ") must not exceed max-queued-request-bytes (" + maxQueuedRequestBytes
          + ")");
    }
  }

  /** Reads the limits from the {@code felix.client-listener} section {@code c}. */
  static ClientLimits from(Config c) {
    long response = c.getBytes("max-metadata-response-bytes");
    if (response > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("felix.client-listener.max-metadata-response-bytes must be below 2 GiB");
    }
    return new ClientLimits(c.getBytes("max-queued-request-bytes"), c.getBytes("max-in-flight-bytes-per-connection"),
        c.getInt("max-connections"), c.getInt("max-connections-per-address"), c.getDuration("idle-timeout"),
        c.getInt("max-metadata-streams"), (int) response);
  }

  private static void positive(String key, long value) {
    if (value < 1) {
      throw new IllegalArgumentException("felix.client-listener." + key + " must be positive, got " + value);
    }
  }
}
