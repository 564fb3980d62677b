package io.felix.broker.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;

/**
 * A broker's configuration, layered as Typesafe Config intends; the first layer that sets a key wins:
 * <ol>
 *   <li>system properties under {@code felix.} and {@code pekko.} ({@code -Dfelix.http.port=8081});</li>
 *   <li>the FELIX_* environment variables of {@link Variable} (the same in a container and on a laptop);</li>
 *   <li>the config file;</li>
 *   <li>reference.conf (added by {@link BrokerNode#start}), which documents every key.</li>
 * </ol>
 */
public final class BrokerConfigLayers {

  /** The environment variables a broker reads, each onto one config key. */
  public enum Variable {
    FELIX_BROKER_ID("felix.broker.id"),
    FELIX_ZONE("felix.broker.zone"),
    FELIX_HOST("felix.broker.host"),
    FELIX_DATA_DIR("felix.broker.data-dir"),
    FELIX_MAX_SHARDS("felix.broker.max-shards"),
    FELIX_CLIENT_PORT("felix.broker.client-port"),
    FELIX_REPLICATION_PORT("felix.broker.replication-port"),
    FELIX_CLUSTER_PORT("felix.cluster.port"),
    /** Comma separated, e.g. {@code pekko://felix@broker-0:25520,pekko://felix@broker-1:25520}. */
    FELIX_SEED_NODES("felix.cluster.seed-nodes"),
    FELIX_ADMIN_HOST("felix.http.host"),
    FELIX_ADMIN_PORT("felix.http.port"),
    FELIX_JOURNAL_URL("felix.persistence.url"),
    FELIX_JOURNAL_USER("felix.persistence.user"),
    FELIX_JOURNAL_PASSWORD("felix.persistence.password"),
    FELIX_PLACEMENT_STRATEGY("felix.control.strategy"),
    FELIX_ADVERTISED_HOST("felix.broker.advertised-host"),
    FELIX_ADVERTISED_CLIENT_PORT("felix.broker.advertised-client-port"),
    FELIX_EXTERNAL_CLIENT_PORT("felix.broker.external-client-port"),
    FELIX_EXTERNAL_ADVERTISED_HOST("felix.broker.external-advertised-host"),
    FELIX_EXTERNAL_ADVERTISED_PORT("felix.broker.external-advertised-port"),
    FELIX_CLUSTER_SECRET("felix.replication.cluster-secret");

    private final String key;

    Variable(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }
  }

  private BrokerConfigLayers() {}

  /** The layers above reference.conf, from the given system properties, environment and file. */
  public static Config of(Properties systemProperties, Map<String, String> environment, Config file) {
    return fromSystemProperties(systemProperties).withFallback(fromEnvironment(environment)).withFallback(file);
  }

  static Config fromSystemProperties(Properties properties) {
    Config all = ConfigFactory.parseProperties(properties);
    Config out = ConfigFactory.empty();
    for (String root : new String[] {"felix", "pekko"}) {
      if (all.hasPath(root)) {
        out = out.withFallback(all.withOnlyPath(root));
      }
    }
    return out;
  }

  static Config fromEnvironment(Map<String, String> environment) {
    Config out = ConfigFactory.empty();
    for (Variable v : Variable.values()) {
      String value = environment.get(v.name());
      if (value == null || value.isBlank()) {
        continue;
      }
      Object parsed = v == Variable.FELIX_SEED_NODES
          ? Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList()
          : value.trim();
      out = out.withValue(v.key(), ConfigValueFactory.fromAnyRef(parsed, "environment variable " + v.name()));
    }
    return out;
  }
}
