package io.felix.broker.http;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;

/**
 * The admin HTTP server, from {@code felix.http}.
 *
 * @param defaultReplicationFactor replicas per shard of a stream created without replication_factor (fewer when
 *     fewer brokers can take replicas)
 * @param listMaxAge how long the singleton's view and the replicas' statuses asked for one list request serve the
 *     next ones ({@link SharedAnswer})
 */
public record HttpSettings(String host, int port, Duration singletonTimeout, int defaultReplicationFactor,
    Duration listMaxAge) {

  public HttpSettings {
    if (port < 0 || port > 65535) {
      throw new ConfigException.BadValue("felix.http.port", "must be 0..65535, got " + port);
    }
    if (singletonTimeout.isNegative() || singletonTimeout.isZero()) {
      throw new ConfigException.BadValue("felix.http.singleton-timeout", "must be > 0, got " + singletonTimeout);
    }
    if (defaultReplicationFactor < 1) {
      throw new ConfigException.BadValue("felix.http.default-replication-factor",
          "must be >= 1, got " + defaultReplicationFactor);
    }
    if (listMaxAge.isNegative()) {
      throw new ConfigException.BadValue("felix.http.list-max-age", "must be >= 0, got " + listMaxAge);
    }
  }

  public static HttpSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.http");
    return new HttpSettings(c.getString("host"), c.getInt("port"), c.getDuration("singleton-timeout"),
        c.getInt("default-replication-factor"), c.getDuration("list-max-age"));
  }
}
