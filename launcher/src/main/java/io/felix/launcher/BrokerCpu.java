package io.felix.launcher;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time (user + system) of a local cluster's broker processes, by broker id: the one way Felix measures broker
 * CPU (the demo, {@code felix perf produce --broker-cpu}, the placement benchmark). A broker not running counts
 * zero; a sample taken before and after a load gives the load's cost by {@link #since}.
 */
public record BrokerCpu(Map<Integer, Duration> byBroker) {

  public BrokerCpu {
    byBroker = Map.copyOf(byBroker);
  }

  /** The CPU each running broker of the layout has used so far. */
  public static BrokerCpu sample(LocalLayout layout) {
    Map<Integer, Duration> cpu = new TreeMap<>();
    for (int broker : layout.knownBrokers()) {
      cpu.put(broker, LocalProcess.broker(layout, broker).handle().flatMap(h -> h.info().totalCpuDuration())
          .orElse(Duration.ZERO));
    }
    return new BrokerCpu(cpu);
  }

  /** The CPU used between {@code before} and this sample, by broker (a restarted broker's from its restart). */
  public BrokerCpu since(BrokerCpu before) {
    Map<Integer, Duration> delta = new TreeMap<>();
    byBroker.forEach((broker, now) -> {
      Duration then = before.byBroker.getOrDefault(broker, Duration.ZERO);
      delta.put(broker, now.compareTo(then) >= 0 ? now.minus(then) : now);
    });
    return new BrokerCpu(delta);
  }

  public Duration total() {
    return byBroker.values().stream().reduce(Duration.ZERO, Duration::plus);
  }

  public double seconds(int broker) {
    return byBroker.getOrDefault(broker, Duration.ZERO).toNanos() / 1e9;
  }

  /** A table of each broker's CPU seconds and the cores that makes over {@code wall}. */
  public String table(Duration wall) {
    StringBuilder out = new StringBuilder(String.format(Locale.ROOT, "  %-7s %-12s %s%n", "broker", "cpu-seconds",
        "cores"));
    double wallSeconds = Math.max(wall.toNanos() / 1e9, 1e-9);
    new TreeMap<>(byBroker).forEach((broker, cpu) -> out.append(String.format(Locale.ROOT, "  %-7d %-12.2f %.2f%n",
        broker, cpu.toNanos() / 1e9, cpu.toNanos() / 1e9 / wallSeconds)));
    return out.toString();
  }
}
