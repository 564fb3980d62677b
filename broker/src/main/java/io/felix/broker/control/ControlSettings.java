package io.felix.broker.control;

import io.felix.broker.config.ConfigChecks;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.Strategy;
import java.time.Duration;

/** The placement singleton's timers and limits, from {@code felix.control}. */
public record ControlSettings(
    Duration placementInterval, Duration failoverTimeout, Duration clusterStartGrace, Duration clusterStartOpenGrace,
    Duration moveStallTimeout,
    Duration moveFenceTimeout, long moveCatchUpLag,
    int maxConcurrentMoves, int maxMovesPerBroker, Duration replicaTimeout, Duration registerInterval,
    Duration progressInterval, Duration probeInterval, int snapshotEvery, int recentMoves, Strategy strategy,
    Duration journalRestartMinBackoff, Duration journalRestartMaxBackoff, StreamLimits streamLimits,
    Duration suspicionCheckInterval, Duration suspicionRepeatInterval, boolean downClosedPeers) {

  public ControlSettings {
    ConfigChecks.positive("felix.control.placement-interval", placementInterval);
    ConfigChecks.positive("felix.control.failover-timeout", failoverTimeout);
    if (clusterStartGrace.isNegative()) {
      throw new ConfigException.BadValue("felix.control.cluster-start-grace", "must be >= 0 (0 = off), got "
          + clusterStartGrace);
    }
    if (clusterStartOpenGrace.isNegative()) {
      throw new ConfigException.BadValue("felix.control.cluster-start-open-grace", "must be >= 0, got "
          + clusterStartOpenGrace);
    }
    ConfigChecks.positive("felix.control.move-stall-timeout", moveStallTimeout);
    ConfigChecks.positive("felix.control.move-fence-timeout", moveFenceTimeout);
    ConfigChecks.positive("felix.control.replica-timeout", replicaTimeout);
    ConfigChecks.positive("felix.control.register-interval", registerInterval);
    ConfigChecks.positive("felix.control.progress-interval", progressInterval);
    ConfigChecks.positive("felix.control.probe-interval", probeInterval);
    ConfigChecks.positive("felix.control.journal-restart-min-backoff", journalRestartMinBackoff);
    ConfigChecks.positive("felix.control.suspicion-check-interval", suspicionCheckInterval);
    ConfigChecks.positive("felix.control.suspicion-repeat-interval", suspicionRepeatInterval);
    if (journalRestartMaxBackoff.compareTo(journalRestartMinBackoff) < 0) {
      throw new ConfigException.BadValue("felix.control.journal-restart-max-backoff",
          "must be >= journal-restart-min-backoff (" + journalRestartMinBackoff + "), got " + journalRestartMaxBackoff);
    }
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
        c.getDuration("placement-interval"), c.getDuration("failover-timeout"), c.getDuration("cluster-start-grace"),
        c.getDuration("cluster-start-open-grace"), c.getDuration("move-stall-timeout"),
        c.getDuration("move-fence-timeout"),
        c.getLong("move-catch-up-lag"), c.getInt("max-concurrent-moves"), c.getInt("max-moves-per-broker"),
        c.getDuration("replica-timeout"), c.getDuration("register-interval"), c.getDuration("progress-interval"),
        c.getDuration("probe-interval"), c.getInt("snapshot-every"), c.getInt("recent-moves"), strategy,
        c.getDuration("journal-restart-min-backoff"), c.getDuration("journal-restart-max-backoff"),
        StreamLimits.from(c),
        c.getDuration("suspicion-check-interval"), c.getDuration("suspicion-repeat-interval"),
        c.getBoolean("down-closed-peers"));
  }
}
