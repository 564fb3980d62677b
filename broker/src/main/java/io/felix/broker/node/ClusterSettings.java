package io.felix.broker.node;

import io.felix.broker.config.ConfigChecks;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.List;

/** Cluster membership, failure detection and downing, from {@code felix.cluster}. */
public record ClusterSettings(
    int port, List<String> seedNodes, Duration heartbeatInterval, Duration acceptableHeartbeatPause,
    Duration sbrStableAfter, Duration downRemovalMargin, Duration rejoinTimeout, Duration joinRetryInterval) {

  public ClusterSettings {
    ConfigChecks.port("felix.cluster.port", port);
    for (String seed : seedNodes) {
      if (!seed.startsWith("pekko://")) {
        throw new ConfigException.BadValue("felix.cluster.seed-nodes",
            "each must be a Pekko address like pekko://felix@host:port, got " + seed);
      }
    }
    ConfigChecks.positive("felix.cluster.heartbeat-interval", heartbeatInterval);
    ConfigChecks.positive("felix.cluster.acceptable-heartbeat-pause", acceptableHeartbeatPause);
    ConfigChecks.positive("felix.cluster.sbr-stable-after", sbrStableAfter);
    ConfigChecks.positive("felix.cluster.down-removal-margin", downRemovalMargin);
    ConfigChecks.positive("felix.cluster.rejoin-timeout", rejoinTimeout);
    ConfigChecks.positive("felix.cluster.join-retry-interval", joinRetryInterval);
    seedNodes = List.copyOf(seedNodes);
  }

  public static ClusterSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.cluster");
    return new ClusterSettings(
        c.getInt("port"),
        c.getStringList("seed-nodes"),
        c.getDuration("heartbeat-interval"),
        c.getDuration("acceptable-heartbeat-pause"),
        c.getDuration("sbr-stable-after"),
        c.getDuration("down-removal-margin"),
        c.getDuration("rejoin-timeout"),
        c.getDuration("join-retry-interval"));
  }

}
