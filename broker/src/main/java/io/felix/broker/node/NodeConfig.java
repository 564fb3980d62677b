package io.felix.broker.node;

import io.felix.broker.control.ControlSettings;
import io.felix.broker.tls.ArteryTlsEngines;
import io.felix.broker.tls.TlsSettings;
import io.felix.broker.control.FelixJacksonModule;
import io.felix.broker.control.JournalRecord;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import io.felix.broker.config.BrokerSettings;
import java.util.ArrayList;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import java.util.List;
import java.util.Map;

/**
 * Derives the Pekko settings of a broker node from the {@code felix} section, so that one Felix key governs
 * each concern: cluster provider and Artery TCP on the broker's host, the broker's id as a cluster role, the
 * Split Brain Resolver (keep-majority, never auto-down), the failure detector, the JDBC journal with its
 * replay filter set to fail on a second writer, and Jackson CBOR for what that journal stores (the
 * {@link JournalRecord}s). Messages crossing Artery are protobuf, bound in reference.conf.
 * Explicit {@code pekko.*} settings in the user's config win over the derived ones.
 */
public final class NodeConfig {

  /** The ActorSystem name every broker uses: members of one cluster must share it. */
  public static final String SYSTEM_NAME = "felix";

  private NodeConfig() {}

  /**
   * The complete config for a broker's ActorSystem.
   *
   * @param userConfig only what the operator wrote (a file, overrides); defaults come from reference.conf
   */
  public static Config derive(Config userConfig) {
    return derive(userConfig, ConfigFactory.defaultReference());
  }

  /**
   * Felix's values for Pekko settings that Pekko's reference.conf also sets, to be layered above every
   * reference.conf: in the broker's jar the reference.conf files are concatenated, Pekko's after Felix's, so a value
   * Felix set there would lose to Pekko's default.
   */
  public static Config pekkoOverrides() {
    return ConfigFactory.parseResources(NodeConfig.class, "pekko-overrides.conf",
        ConfigParseOptions.defaults().setAllowMissing(false));
  }

  /** {@link #derive(Config)} on the given defaults: a test hands it the defaults as the broker's jar merges them. */
  static Config derive(Config userConfig, Config reference) {
    Config explicitPekko = userConfig.hasPath("pekko") ? userConfig.withOnlyPath("pekko") : ConfigFactory.empty();
    Config full = userConfig.withFallback(pekkoOverrides()).withFallback(reference).resolve();
    BrokerSettings broker = BrokerSettings.fromConfig(full);
    ClusterSettings cluster = ClusterSettings.fromConfig(full);
    JournalSettings journal = JournalSettings.fromConfig(full);
    if (journal.inMemory() && cluster.seedNodes().size() > 1) {
      throw new ConfigException.BadValue("felix.persistence.url", "an in-memory journal (" + journal.url()
          + ") lives inside one broker process, but " + cluster.seedNodes().size() + " seed nodes are configured: each"
          + " broker would keep its own placement decisions. Use an H2 file shared by the brokers of one machine or"
          + " PostgreSQL");
    }

    List<String> modules = new ArrayList<>(full.getStringList("pekko.serialization.jackson.jackson-modules"));
    modules.add(FelixJacksonModule.class.getName());

    Map<String, Object> derived = new java.util.HashMap<>();
    derived.put("pekko.actor.provider", "cluster");
    derived.put("pekko.loggers", List.of("org.apache.pekko.event.slf4j.Slf4jLogger"));
    derived.put("pekko.logging-filter", "org.apache.pekko.event.slf4j.Slf4jLoggingFilter");
    if (TlsSettings.fromConfig(full).enabled()) {
      // Mutual TLS between brokers, with felix.tls's key material (ArteryTlsEngines requires both ends' certificates).
      derived.put("pekko.remote.artery.transport", "tls-tcp");
      derived.put("pekko.remote.artery.ssl.ssl-engine-provider", ArteryTlsEngines.class.getName());
    } else {
      derived.put("pekko.remote.artery.transport", "tcp");
    }
    derived.put("pekko.remote.artery.canonical.hostname", broker.host());
    derived.put("pekko.remote.artery.canonical.port", cluster.port());
    derived.put("pekko.cluster.roles", List.of(broker.clusterRole()));
    derived.put("pekko.cluster.downing-provider-class", "org.apache.pekko.cluster.sbr.SplitBrainResolverProvider");
    derived.put("pekko.cluster.split-brain-resolver.active-strategy", "keep-majority");
    derived.put("pekko.cluster.split-brain-resolver.stable-after", millis(cluster.sbrStableAfter()));
    derived.put("pekko.cluster.down-removal-margin", millis(cluster.downRemovalMargin()));
    derived.put("pekko.cluster.failure-detector.heartbeat-interval", millis(cluster.heartbeatInterval()));
    derived.put("pekko.cluster.failure-detector.acceptable-heartbeat-pause", millis(cluster.acceptableHeartbeatPause()));
    List<Address> seeds = cluster.seedNodes().stream().map(AddressFromURIString::parse).toList();
    if (ClusterJoin.isFirstSeed(seeds, new Address("pekko", SYSTEM_NAME, broker.host(), cluster.port()))) {
      // Only the first seed's process reads it: how long it asks silent seeds before forming a cluster alone.
      derived.put("pekko.cluster.seed-node-timeout", millis(cluster.rejoinTimeout()));
    } else {
      // Every other broker only asks again after it (it never forms a cluster): how soon it joins a first seed that
      // formed the cluster just after this broker's first ask was answered "not a member".
      derived.put("pekko.cluster.seed-node-timeout", millis(cluster.joinRetryInterval()));
    }
    derived.put("pekko.cluster.jmx.multi-mbeans-in-same-jvm", "on");
    // The leader removes a down, terminated member (and so lets the singleton move) only on this tick: 1 s by default.
    derived.put("pekko.cluster.leader-actions-interval", "200ms");
    derived.put("pekko.cluster.singleton.hand-over-retry-interval", "200ms");
    derived.put("pekko.cluster.singleton-proxy.singleton-identification-interval", "200ms");
    derived.put("pekko.coordinated-shutdown.exit-jvm", "off");

    derived.put("pekko.persistence.journal.plugin", "jdbc-journal");
    derived.put("pekko.persistence.snapshot-store.plugin", "jdbc-snapshot-store");
    derived.put("jdbc-journal.use-shared-db", "slick");
    derived.put("jdbc-snapshot-store.use-shared-db", "slick");
    derived.put("jdbc-read-journal.use-shared-db", "slick");
    // A second writer (two singletons after a split brain) must stop recovery, not be repaired silently.
    derived.put("jdbc-journal.replay-filter.mode", "fail");
    // The journal's circuit breakers stay open 60 s after 5 failures by default, so a singleton restarting after a
    // journal failure would wait up to a minute once the database is back: they close again within one backoff.
    String breakerReset = millis(ControlSettings.fromConfig(full).journalRestartMaxBackoff());
    derived.put("jdbc-journal.circuit-breaker.reset-timeout", breakerReset);
    derived.put("jdbc-snapshot-store.circuit-breaker.reset-timeout", breakerReset);
    String db = "pekko-persistence-jdbc.shared-databases.slick.";
    derived.put(db + "profile", journal.profile());
    derived.put(db + "db.url", journal.url());
    derived.put(db + "db.user", journal.user());
    derived.put(db + "db.password", journal.password());
    derived.put(db + "db.driver", journal.driver());
    derived.put(db + "db.numThreads", journal.maxConnections());
    derived.put(db + "db.maxConnections", journal.maxConnections());
    derived.put(db + "db.minConnections", 1);

    derived.put("pekko.serialization.jackson.jackson-modules", modules);
    derived.put("pekko.actor.serialization-bindings.\"" + JournalRecord.class.getName() + "\"", "jackson-cbor");

    Config derivedConfig = ConfigFactory.parseMap(derived, "derived from felix.*");
    return explicitPekko.withFallback(derivedConfig).withFallback(full).resolve();
  }

  private static String millis(java.time.Duration d) {
    return d.toMillis() + "ms";
  }

  /** Config for tests and tools: the given overrides (dotted keys) on top of the defaults. */
  public static Config withOverrides(Map<String, ?> overrides) {
    return derive(ConfigFactory.parseMap(overrides));
  }
}
