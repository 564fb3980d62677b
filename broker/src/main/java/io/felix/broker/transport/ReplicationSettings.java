package io.felix.broker.transport;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/** The {@code felix.replication} section (see reference.conf for what each value is for). */
public record ReplicationSettings(
    int fetchMaxBytes,
    Duration fetchMaxWait,
    Duration fetchTimeout,
    long isrMaxLagRecords,
    Duration isrMaxLagTime,
    Duration produceTimeout,
    Duration reconnectMinBackoff,
    Duration reconnectMaxBackoff,
    int sendQueueFrames,
    int maxFrameSize,
    Duration producerIdleExpiry,
    Duration peerCloseGrace,
    Duration peerSilenceTimeout,
    int fetchSessionMaxBytes) {

  public ReplicationSettings {
    positive("fetch-max-bytes", fetchMaxBytes);
    positive("fetch-max-wait", fetchMaxWait);
    positive("fetch-timeout", fetchTimeout);
    if (fetchTimeout.compareTo(fetchMaxWait) <= 0) {
      throw new IllegalArgumentException("felix.replication.fetch-timeout (" + fetchTimeout
          + ") must be longer than felix.replication.fetch-max-wait (" + fetchMaxWait + ")");
    }
    positive("isr-max-lag-records", isrMaxLagRecords);
    positive("isr-max-lag-time", isrMaxLagTime);
    positive("produce-timeout", produceTimeout);
    positive("reconnect-min-backoff", reconnectMinBackoff);
    if (reconnectMaxBackoff.compareTo(reconnectMinBackoff) < 0) {
      throw new IllegalArgumentException(
          "felix.replication.reconnect-max-backoff must be >= felix.replication.reconnect-min-backoff");
    }
    positive("send-queue-frames", sendQueueFrames);
    positive("peer-close-grace", peerCloseGrace);
    if (peerSilenceTimeout.compareTo(fetchMaxWait) <= 0) {
      throw new IllegalArgumentException("felix.replication.peer-silence-timeout (" + peerSilenceTimeout
          + ") must be longer than felix.replication.fetch-max-wait (" + fetchMaxWait + "): a live leader may hold a"
          + " fetch that long");
    }
    if (maxFrameSize < fetchMaxBytes + 4096) {
      throw new IllegalArgumentException("felix.replication.max-frame-size (" + maxFrameSize
          + ") must exceed felix.replication.fetch-max-bytes (" + fetchMaxBytes + ") by at least 4 KiB");
    }
    positive("producer-idle-expiry", producerIdleExpiry);
    if (fetchSessionMaxBytes < fetchMaxBytes) {
      throw new IllegalArgumentException("felix.replication.fetch-session-max-bytes (" + fetchSessionMaxBytes
          + ") must be at least felix.replication.fetch-max-bytes (" + fetchMaxBytes + ")");
    }
    if (maxFrameSize < fetchSessionMaxBytes + 4096) {
      throw new IllegalArgumentException("felix.replication.max-frame-size (" + maxFrameSize
          + ") must exceed felix.replication.fetch-session-max-bytes (" + fetchSessionMaxBytes + ") by at least 4 KiB");
    }
  }

  public static ReplicationSettings from(Config root) {
    Config c = root.getConfig("felix.replication");
    try {
      return new ReplicationSettings(
          intBytes(c, "fetch-max-bytes"),
          c.getDuration("fetch-max-wait"),
          c.getDuration("fetch-timeout"),
          c.getLong("isr-max-lag-records"),
          c.getDuration("isr-max-lag-time"),
          c.getDuration("produce-timeout"),
          c.getDuration("reconnect-min-backoff"),
          c.getDuration("reconnect-max-backoff"),
          c.getInt("send-queue-frames"),
          intBytes(c, "max-frame-size"),
          c.getDuration("producer-idle-expiry"),
          c.getDuration("peer-close-grace"),
          c.getDuration("peer-silence-timeout"),
          intBytes(c, "fetch-session-max-bytes"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("bad felix.replication setting: " + e.getMessage(), e);
    }
  }

  private static int intBytes(Config c, String key) {
    long bytes = c.getBytes(key);
    if (bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("felix.replication." + key + " must be below 2 GiB, got " + bytes);
    }
    return (int) bytes;
  }

  private static void positive(String key, long value) {
    if (value <= 0) {
      throw new IllegalArgumentException("felix.replication." + key + " must be positive, got " + value);
    }
  }

  private static void positive(String key, Duration value) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException("felix.replication." + key + " must be positive, got " + value);
    }
  }
}
