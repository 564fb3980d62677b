package io.felix.loadgen.bench;

import io.felix.cli.CommandFailure;
import io.felix.cli.Converters;
import io.felix.cli.Ranges;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code felix bench placement [options]}: the placement benchmark of docs/placement.md (see
 * {@link PlacementBench}). The brokers are started and stopped with {@code bin/felix local up/down} (found through
 * FELIX_HOME, which {@code bin/felix} sets, or upward from the working directory); FELIX_PORT_OFFSET picks their
 * ports. Exit status: 0 done, 1 the benchmark failed, 2 bad usage (the message names the option).
 */
@Command(name = "bench", mixinStandardHelpOptions = true, description = "Benchmarks on a local cluster.")
public final class BenchCommand {

  /** The strategies of --strategy. */
  enum StrategyChoice {
    CLUSTER_SHARE(List.of("cluster-share")),
    STREAM_AWARE(List.of("stream-aware")),
    BOTH(List.of("cluster-share", "stream-aware"));

    final List<String> strategies;

    StrategyChoice(List<String> strategies) {
      this.strategies = strategies;
    }

    static StrategyChoice of(String word) {
      for (StrategyChoice c : values()) {
        if (c.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(word)) {
          return c;
        }
      }
      throw new picocli.CommandLine.TypeConversionException(
          "expected cluster-share, stream-aware or both, got '" + word + "'");
    }
  }

  @Spec
  CommandSpec spec;

  @Command(name = "placement", mixinStandardHelpOptions = true,
      description = "A 12-shard stream created beside streams that fill two brokers to their share, under each "
          + "strategy: its leaders per broker after each creation, then write throughput and broker CPU.")
  int placement(
      @Option(names = "--strategy", defaultValue = "both", converter = StrategyConverter.class,
          description = "cluster-share, stream-aware or both (cluster-share first); default ${DEFAULT-VALUE}")
      StrategyChoice strategy,
      @Option(names = "--duration", defaultValue = "15s", converter = Converters.PositiveDuration.class,
          description = "load per strategy, whole seconds (default ${DEFAULT-VALUE})") Duration load,
      @Option(names = "--recreates", defaultValue = "3",
          description = "times the 12-shard stream is deleted and created again (default ${DEFAULT-VALUE})")
      int recreates,
      @Option(names = "--record-size", defaultValue = "1024", description = "default ${DEFAULT-VALUE}") int recordSize,
      @Option(names = "--producers", defaultValue = "4", description = "default ${DEFAULT-VALUE}") int producers,
      @Option(names = "--broker-jar", paramLabel = "PATH",
          description = "default: bin/felix's own, broker/target/felix-broker.jar") Path brokerJar,
      @Option(names = "--dir", defaultValue = "data/bench",
          description = "where the brokers keep data and logs; DIR/STRATEGY is wiped first (default ${DEFAULT-VALUE})")
      Path dir) throws Exception {
    PlacementBench.Settings settings = settings(strategy, load, recreates, recordSize, producers, brokerJar, dir);
    try {
      new PlacementBench(settings).run();
    } catch (java.io.IOException | IllegalStateException e) {
      throw new CommandFailure("the benchmark failed: " + e.getMessage());
    }
    return 0;
  }

  PlacementBench.Settings settings(StrategyChoice strategy, Duration load, int recreates, int recordSize,
      int producers, Path brokerJar, Path dir) {
    if (load.toMillis() % 1000 != 0) {
      throw Ranges.usage(spec, "--duration: expected whole seconds like 15s, got " + load.toMillis() + " ms");
    }
    return new PlacementBench.Settings(brokerJar, dir, strategy.strategies,
        Ranges.within(spec, "--recreates", recreates, 0, 100), load,
        Ranges.within(spec, "--record-size", recordSize, 1, 4 * 1024 * 1024),
        Ranges.within(spec, "--producers", producers, 1, 1024), Duration.ofSeconds(120));
  }

  /** --strategy's words. */
  static final class StrategyConverter implements picocli.CommandLine.ITypeConverter<StrategyChoice> {
    @Override
    public StrategyChoice convert(String value) {
      return StrategyChoice.of(value);
    }
  }
}
