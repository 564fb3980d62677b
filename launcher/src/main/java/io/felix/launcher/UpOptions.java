package io.felix.launcher;

import java.util.List;
import java.util.OptionalDouble;

/**
 * What {@code felix local up} starts: how many brokers, their zones (given in turn), the placement strategy, an
 * optional CPU budget per broker (cores) and TLS on every listener.
 */
public record UpOptions(int brokers, List<String> zones, PlacementStrategy strategy, OptionalDouble cpuPerBroker,
    boolean tls) {

  public UpOptions {
    if (brokers < 1 || brokers > LocalLayout.MAX_BROKERS) {
      throw new IllegalArgumentException("--brokers must be from 1 to " + LocalLayout.MAX_BROKERS + ", got " + brokers);
    }
    zones = List.copyOf(zones);
    if (zones.isEmpty() || zones.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("--zones needs a list like a,b,c, got " + zones);
    }
  }

  /** {@code brokers} brokers in zones a, b, c, stream-aware placement, no budget, no TLS. */
  public static UpOptions brokers(int brokers) {
    return new UpOptions(brokers, List.of("a", "b", "c"), PlacementStrategy.STREAM_AWARE, OptionalDouble.empty(),
        false);
  }

  public UpOptions zones(List<String> zones) {
    return new UpOptions(brokers, zones, strategy, cpuPerBroker, tls);
  }

  public UpOptions strategy(PlacementStrategy strategy) {
    return new UpOptions(brokers, zones, strategy, cpuPerBroker, tls);
  }

  public UpOptions cpuPerBroker(double cores) {
    return new UpOptions(brokers, zones, strategy, OptionalDouble.of(cores), tls);
  }

  public UpOptions tls(boolean tls) {
    return new UpOptions(brokers, zones, strategy, cpuPerBroker, tls);
  }

  /** Broker N's config. */
  BrokerConfig config(int broker) {
    return new BrokerConfig(broker, zones.get(broker % zones.size()), brokers, strategy, tls);
  }
}
