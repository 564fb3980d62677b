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
 * @param listMaxWait how long a list request waits for a fresh answer when an earlier one exists (then it serves
 *     that one, with an {@code Age} header)
 * @param listMaxStale the oldest an earlier answer may be to serve so
 */
public record HttpSettings(String host, int port, Duration singletonTimeout, int defaultReplicationFactor,
    Duration listMaxAge, Duration listMaxWait, Duration listMaxStale) {

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
    if (listMaxWait.isNegative() || listMaxWait.isZero()) {
      throw new ConfigException.BadValue("felix.http.list-max-wait", "must be > 0, got " + listMaxWait);
    }
    if (listMaxStale.isNegative()) {
      throw new ConfigException.BadValue("felix.http.list-max-stale", "must be >= 0, got " + listMaxStale);
    }
  }

  public static HttpSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.http");
    return new HttpSettings(c.getString("host"), c.getInt("port"), c.getDuration("singleton-timeout"),
        c.getInt("default-replication-factor"), c.getDuration("list-max-age"), c.getDuration("list-max-wait"),
        c.getDuration("list-max-stale"));
  }
}
