package io.felix.broker.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.broker.assignment.BrokerRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * Who this broker is and where it listens, from {@code felix.broker}: its stable id, optional zone and shard cap,
 * the host it binds and advertises, its data directory, and its client and replication ports (0 picks a free
 * port). The one reading of that section, shared by the node, the data plane and the assignment holder.
 *
 * @param maxShards 0 when the broker has no cap
 * @param advertisedHost the host clients are told, when not {@code host}
 * @param advertisedClientPort the client port clients are told; 0 = the bound one
 * @param external the second client listener, for clients outside the brokers' network, if there is one
 * @param quarantineRetention how long a replica log set aside (not listed by the table, or of another stream
 *     incarnation) is kept under {@code data-dir/quarantine} before it is deleted
 */
public record BrokerSettings(
    int id, Optional<String> zone, int maxShards, String host, Path dataDir, int clientPort, int replicationPort,
    Duration quarantineRetention, Optional<String> advertisedHost, int advertisedClientPort,
    Optional<ExternalListener> external) {

  /**
   * The external client listener: it binds {@code port} (0 = a free one); its clients are told
   * {@code advertisedHost} and {@code advertisedPort} (0 = the bound port).
   */
  public record ExternalListener(int port, String advertisedHost, int advertisedPort) {
    public ExternalListener {
      ConfigChecks.port("felix.broker.external-client-port", port);
      ConfigChecks.port("felix.broker.external-advertised-port", advertisedPort);
    }
  }

  public BrokerSettings {
    ConfigChecks.atLeast("felix.broker.id", id, 0);
    ConfigChecks.atLeast("felix.broker.max-shards", maxShards, 0);
    if (host == null || host.isBlank()) {
      throw new ConfigException.BadValue("felix.broker.host", "must not be empty");
    }
    ConfigChecks.port("felix.broker.client-port", clientPort);
    ConfigChecks.port("felix.broker.replication-port", replicationPort);
    ConfigChecks.port("felix.broker.advertised-client-port", advertisedClientPort);
    if (quarantineRetention.isNegative()) {
      throw new ConfigException.BadValue("felix.broker.quarantine-retention", "must not be negative");
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
        Path.of(c.getString("data-dir")),
        c.getInt("client-port"),
        c.getInt("replication-port"),
        c.getDuration("quarantine-retention"),
        advertisedHost(c),
        c.getInt("advertised-client-port"),
        externalListener(c));
  }

  private static Optional<String> advertisedHost(Config c) {
    String advertised = c.getString("advertised-host").trim();
    return advertised.isEmpty() ? Optional.empty() : Optional.of(advertised);
  }

  private static Optional<ExternalListener> externalListener(Config c) {
    int port = c.getInt("external-client-port");
    if (port == -1) {
      return Optional.empty();
    }
    String host = c.getString("external-advertised-host").trim();
    return Optional.of(new ExternalListener(port,
        host.isEmpty() ? advertisedHost(c).orElse(c.getString("host")) : host, c.getInt("external-advertised-port")));
  }

  /** The Pekko cluster role that names this broker. */
  public String clusterRole() {
    return BrokerRole.of(id);
  }
}
