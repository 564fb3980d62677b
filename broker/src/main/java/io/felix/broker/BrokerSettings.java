package io.felix.broker;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Who this broker is, from {@code felix.broker}: its stable id, optional zone and shard cap, the host it binds
 * and advertises, and its data directory.
 *
 * @param maxShards 0 when the broker has no cap
 */
public record BrokerSettings(int id, Optional<String> zone, int maxShards, String host, Path dataDir) {

  public BrokerSettings {
    if (id < 0) {
      throw new ConfigException.BadValue("felix.broker.id", "must be >= 0, got " + id);
    }
    if (maxShards < 0) {
      throw new ConfigException.BadValue("felix.broker.max-shards", "must be >= 0 (0 = no cap), got " + maxShards);
    }
    if (host.isBlank()) {
      throw new ConfigException.BadValue("felix.broker.host", "must not be empty");
    }
  }

  /** Reads and validates {@code felix.broker} of a full config. */
  public static BrokerSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.broker");
    String zone = c.getString("zone").trim();
    return new BrokerSettings(
        c.getInt("id"),
        zone.isEmpty() ? Optional.empty() : Optional.of(zone),
        c.getInt("max-shards"),
        c.getString("host"),
        Path.of(c.getString("data-dir")));
  }

  /** The Pekko cluster role that names this broker, so the singleton can map members to broker ids. */
  public String clusterRole() {
    return roleOf(id);
  }

  public static String roleOf(int brokerId) {
    return "broker-" + brokerId;
  }
}
