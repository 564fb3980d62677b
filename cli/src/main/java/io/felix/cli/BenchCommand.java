package io.felix.cli;

import io.felix.loadgen.bench.PlacementBench;
import io.felix.loadgen.bench.ScaleBench;
import io.felix.loadgen.chaos.FailoverBench;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code felix bench placement [options]}: the placement benchmark of docs/placement.md (see
 * {@link PlacementBench}); {@code felix bench failover [options]}: failover times under SIGKILL (see
 * {@link FailoverBench}). The brokers are started and stopped with {@code bin/felix local up/down} (found through
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
      Path dir,
      @Option(names = "--rounds", defaultValue = "3",
          description = "runs per strategy, the strategies alternating; the summary gives median and range "
              + "(default ${DEFAULT-VALUE})") int rounds,
      @Option(names = "--cpu-per-broker", paramLabel = "CORES",
          description = "each broker in a cgroup of its own with this CPU quota, as if on a machine of its own "
              + "(bin/felix local up --cpu-per-broker; needs a writable cgroup, usually root); default: none")
      Double cpuPerBroker) throws Exception {
    PlacementBench.Settings settings = settings(strategy, load, recreates, recordSize, producers, brokerJar, dir,
        rounds, cpuPerBroker);
    try {
      new PlacementBench(settings).run();
    } catch (java.io.IOException | IllegalStateException e) {
      throw new CommandFailure("the benchmark failed: " + e.getMessage());
    }
    return 0;
  }

  @Command(name = "scale", mixinStandardHelpOptions = true,
      description = "One stream of many shards on three local brokers with default heaps: time until every shard is"
          + " led, the admin API's answer times meanwhile, a quorum produce across every shard read back, a whole-cluster"
          + " restart, idle CPU, heap and file descriptors; optionally more such streams until one is refused.")
  int scale(
      @Option(names = "--shards", defaultValue = "10000", description = "shards of the stream (default ${DEFAULT-VALUE})")
      int shards,
      @Option(names = "--streams", defaultValue = "1",
          description = "streams of that size to try, one after another (default ${DEFAULT-VALUE})") int streams,
      @Option(names = "--records", defaultValue = "100000",
          description = "records of the quorum produce (default ${DEFAULT-VALUE})") long records,
      @Option(names = "--idle", defaultValue = "30s", converter = Converters.PositiveDuration.class,
          description = "how long idle CPU is measured (default ${DEFAULT-VALUE})") Duration idle,
      @Option(names = "--settle", defaultValue = "2m", converter = Converters.PositiveDuration.class,
          description = "how long after the restart idle CPU starts being measured: past the restart's own work and"
              + " the idle close of every log's files (felix.log.idle-file-close, 60 s) (default ${DEFAULT-VALUE})")
      Duration settle,
      @Option(names = "--dir", defaultValue = "data/bench-scale",
          description = "where the brokers keep data and logs; wiped first (default ${DEFAULT-VALUE})") Path dir)
      throws Exception {
    if (shards < 1 || streams < 1 || records < 1) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--shards, --streams and --records must be positive");
    }
    return new ScaleBench(new ScaleBench.Settings(dir, shards, streams, records, idle, settle), System.out).run() ? 0 : 1;
  }

  @Command(name = "failover", mixinStandardHelpOptions = true,
      description = "SIGKILLs a broker again and again under a steady ledgered produce and prints, per kill, when the "
          + "loss was detected, the first fence, the last promotion and each led shard's first acknowledged write, "
          + "then the distribution; the stream is read back against the ledger at the end.")
  int failover(
      @Option(names = "--victim", defaultValue = "leader,singleton-host", split = ",", paramLabel = "KIND",
          converter = VictimConverter.class,
          description = "leader (the broker leading the most shards, not the singleton's host), singleton-host, or "
              + "both, comma separated: each kind gets its own cluster and --kills kills; default ${DEFAULT-VALUE}")
      List<FailoverBench.Victim> victims,
      @Option(names = "--kills", defaultValue = "10", description = "kills per victim kind (default ${DEFAULT-VALUE})")
      int kills,
      @Option(names = "--shards", defaultValue = "6", description = "default ${DEFAULT-VALUE}") int shards,
      @Option(names = "--rate", defaultValue = "500", description = "records per second (default ${DEFAULT-VALUE})")
      long rate,
      @Option(names = "--settle", defaultValue = "3s", converter = Converters.PositiveDuration.class,
          description = "pause after a killed broker is back before the next kill (default ${DEFAULT-VALUE})")
      Duration settle,
      @Option(names = "--bound", converter = Converters.PositiveDuration.class,
          description = "a kill slower than this to writable fails the run (default twice the goal: 6s for leader, "
              + "10s for singleton-host)") Duration bound,
      @Option(names = "--dir", defaultValue = "data/bench-failover",
          description = "where the brokers keep data and logs, DIR/VICTIM per victim kind (default ${DEFAULT-VALUE})")
      Path dir) throws Exception {
    boolean met = true;
    for (FailoverBench.Victim victim : new java.util.LinkedHashSet<>(victims)) {
      FailoverBench.Settings settings = failoverSettings(victim, kills, shards, rate, settle, bound, dir);
      try {
        met &= new FailoverBench(settings, java.util.Map.of(), System.out).run();
      } catch (java.io.IOException | IllegalStateException e) {
        throw new CommandFailure("the benchmark failed: " + e.getMessage());
      }
    }
    return met ? 0 : 1;
  }

  FailoverBench.Settings failoverSettings(FailoverBench.Victim victim, int kills, int shards, long rate,
      Duration settle, Duration bound, Path dir) {
    Duration goalTwice = Duration.ofSeconds(victim == FailoverBench.Victim.LEADER ? 6 : 10);
    return new FailoverBench.Settings(dir.resolve(victim.wireName()), victim,
        Ranges.within(spec, "--kills", kills, 1, 1000),
        Ranges.within(spec, "--shards", shards, 1, 1000), Ranges.within(spec, "--rate", rate, 1, 1_000_000),
        settle, bound == null ? goalTwice : bound);
  }

  /** --victim's words. */
  static final class VictimConverter implements picocli.CommandLine.ITypeConverter<FailoverBench.Victim> {
    @Override
    public FailoverBench.Victim convert(String value) {
      try {
        return FailoverBench.Victim.fromWireName(value);
      } catch (IllegalArgumentException e) {
        throw new picocli.CommandLine.TypeConversionException("expected leader or singleton-host, got '" + value + "'");
      }
    }
  }

  PlacementBench.Settings settings(StrategyChoice strategy, Duration load, int recreates, int recordSize,
      int producers, Path brokerJar, Path dir, int rounds, Double cpuPerBroker) {
    if (load.toMillis() % 1000 != 0) {
      throw Ranges.usage(spec, "--duration: expected whole seconds like 15s, got " + load.toMillis() + " ms");
    }
    if (cpuPerBroker != null && !(cpuPerBroker >= 0.01 && cpuPerBroker <= 1024)) {
      throw Ranges.usage(spec, "--cpu-per-broker: expected a number of cores from 0.01 to 1024, got " + cpuPerBroker);
    }
    return new PlacementBench.Settings(brokerJar, dir, strategy.strategies,
        Ranges.within(spec, "--recreates", recreates, 0, 100), load,
        Ranges.within(spec, "--record-size", recordSize, 1, 4 * 1024 * 1024),
        Ranges.within(spec, "--producers", producers, 1, 1024), Duration.ofSeconds(120),
        Ranges.within(spec, "--rounds", rounds, 1, 100),
        cpuPerBroker == null ? OptionalDouble.empty() : OptionalDouble.of(cpuPerBroker));
  }

  /** --strategy's words. */
  static final class StrategyConverter implements picocli.CommandLine.ITypeConverter<StrategyChoice> {
    @Override
    public StrategyChoice convert(String value) {
      return StrategyChoice.of(value);
    }
  }
}
