package io.felix.broker.shard;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.nio.file.Path;

/** The {@code felix.broker} section: who this broker is and where it listens. */
public record BrokerSettings(int id, String host, Path dataDir, int clientPort, int replicationPort) {

  public BrokerSettings {
    if (id < 0) {
      throw new IllegalArgumentException("felix.broker.id must be >= 0, got " + id);
    }
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("felix.broker.host must not be empty");
    }
    checkPort("felix.broker.client-port", clientPort);
    checkPort("felix.broker.replication-port", replicationPort);
  }

  /** Reads {@code felix.broker} from the whole config. */
  public static BrokerSettings from(Config root) {
    Config c = root.getConfig("felix.broker");
    try {
      return new BrokerSettings(
          c.getInt("id"), c.getString("host"), Path.of(c.getString("data-dir")),
          c.getInt("client-port"), c.getInt("replication-port"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("bad felix.broker setting: " + e.getMessage(), e);
    }
  }

  private static void checkPort(String key, int port) {
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException(key + " must be within 0..65535, got " + port);
    }
  }
}
