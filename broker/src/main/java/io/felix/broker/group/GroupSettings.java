package io.felix.broker.group;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/**
 * Consumer groups, from {@code felix.groups}.
 *
 * @param offsetsShards shards of the internal offsets stream (a group is coordinated by the leader of one of them)
 * @param offsetsReplicationFactor its replicas per shard (fewer when fewer brokers are live when it is created)
 * @param sessionTimeout the session timeout of a member that asks for none
 * @param minSessionTimeout the shortest session timeout a member may ask for
 * @param maxSessionTimeout the longest
 * @param sessionCheckInterval how often a coordinator looks for members whose session timed out
 * @param commitTimeout how long a commit (or the load barrier) may wait for a majority of the offsets stream
 */
public record GroupSettings(int offsetsShards, int offsetsReplicationFactor, Duration sessionTimeout,
    Duration minSessionTimeout, Duration maxSessionTimeout, Duration sessionCheckInterval, Duration commitTimeout) {

  public GroupSettings {
    if (offsetsShards < 1) {
      throw new ConfigException.BadValue("felix.groups.offsets-shards", "must be >= 1, got " + offsetsShards);
    }
    if (offsetsReplicationFactor < 1) {
      throw new ConfigException.BadValue("felix.groups.offsets-replication-factor",
          "must be >= 1, got " + offsetsReplicationFactor);
    }
    if (minSessionTimeout.compareTo(sessionTimeout) > 0 || sessionTimeout.compareTo(maxSessionTimeout) > 0) {
      throw new ConfigException.BadValue("felix.groups.session-timeout",
          "must lie between min-session-timeout and max-session-timeout, got " + sessionTimeout);
    }
    if (sessionCheckInterval.isZero() || sessionCheckInterval.isNegative()) {
      throw new ConfigException.BadValue("felix.groups.session-check-interval", "must be > 0");
    }
    if (commitTimeout.isZero() || commitTimeout.isNegative()) {
      throw new ConfigException.BadValue("felix.groups.commit-timeout", "must be > 0");
    }
  }

  public static GroupSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.groups");
    return new GroupSettings(c.getInt("offsets-shards"), c.getInt("offsets-replication-factor"),
        c.getDuration("session-timeout"), c.getDuration("min-session-timeout"), c.getDuration("max-session-timeout"),
        c.getDuration("session-check-interval"), c.getDuration("commit-timeout"));
  }

  /** The session timeout for a member that asked for {@code requestedMs} (0: the default), clamped to the bounds. */
  public long sessionTimeoutMs(int requestedMs) {
    if (requestedMs <= 0) {
      return sessionTimeout.toMillis();
    }
    return Math.max(minSessionTimeout.toMillis(), Math.min(maxSessionTimeout.toMillis(), requestedMs));
  }
}
