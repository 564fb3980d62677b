package io.felix.broker.control;

import io.felix.broker.config.ConfigChecks;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.Strategy;
import java.time.Duration;

/** The placement singleton's timers and limits, from {@code felix.control}. */
public record ControlSettings(
    Duration placementInterval, Duration failoverTimeout, Duration moveTimeout, long moveCatchUpLag,
    int maxConcurrentMoves, int maxMovesPerBroker, Duration replicaTimeout, Duration registerInterval,
    int snapshotEvery, int recentMoves, Strategy strategy) {

  public ControlSettings {
    ConfigChecks.positive("felix.control.placement-interval", placementInterval);
    ConfigChecks.positive("felix.control.failover-timeout", failoverTimeout);
    ConfigChecks.positive("felix.control.move-timeout", moveTimeout);
    ConfigChecks.positive("felix.control.replica-timeout", replicaTimeout);
    ConfigChecks.positive("felix.control.register-interval", registerInterval);
    if (moveCatchUpLag < 0) {
      throw new ConfigException.BadValue("felix.control.move-catch-up-lag", "must be >= 0, got " + moveCatchUpLag);
    }
    if (maxConcurrentMoves < 1) {
      throw new ConfigException.BadValue("felix.control.max-concurrent-moves", "must be >= 1, got " + maxConcurrentMoves);
    }
    if (maxMovesPerBroker < 0) {
      throw new ConfigException.BadValue("felix.control.max-moves-per-broker",
          "must be >= 0 (0 = no limit), got " + maxMovesPerBroker);
    }
    if (snapshotEvery < 1) {
      throw new ConfigException.BadValue("felix.control.snapshot-every", "must be >= 1, got " + snapshotEvery);
    }
    if (recentMoves < 0) {
      throw new ConfigException.BadValue("felix.control.recent-moves", "must be >= 0, got " + recentMoves);
    }
  }

  public static ControlSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.control");
    Strategy strategy;
    try {
      strategy = Strategy.fromWireName(c.getString("strategy"));
    } catch (InvalidLayoutException e) {
      throw new ConfigException.BadValue("felix.control.strategy", e.getMessage());
    }
    return new ControlSettings(
        c.getDuration("placement-interval"), c.getDuration("failover-timeout"), c.getDuration("move-timeout"),
        c.getLong("move-catch-up-lag"), c.getInt("max-concurrent-moves"), c.getInt("max-moves-per-broker"),
        c.getDuration("replica-timeout"), c.getDuration("register-interval"), c.getInt("snapshot-every"),
        c.getInt("recent-moves"), strategy);
  }
}
