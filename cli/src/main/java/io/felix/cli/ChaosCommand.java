package io.felix.cli;

import io.felix.loadgen.UsageException;
import io.felix.loadgen.chaos.ChaosOptions;
import io.felix.loadgen.chaos.ChaosRun;
import io.felix.loadgen.chaos.ChaosTable;
import io.felix.loadgen.chaos.FaultKind;
import io.felix.loadgen.local.LoopbackPartition;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code felix chaos [options]}: the fault suite of loadgen ({@link ChaosRun}). See {@link ChaosOptions} for what the
 * options mean and {@link FaultKind} for the faults.
 *
 * <p>Exit status: 0 when every round kept every acknowledged record exactly once and in order and had every
 * shard writable within the bound; 1 otherwise (or when the cluster could not be started); 2 bad usage.
 */
@Command(name = "chaos", mixinStandardHelpOptions = true, sortOptions = false,
    description = "The fault suite: a supervised local cluster, ledgered producers, one fault per round, every "
        + "acknowledged record read back.")
public final class ChaosCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Option(names = "--duration", converter = Converters.PositiveDuration.class, defaultValue = "3m",
      description = "rounds start until this much time has passed (default ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--faults", paramLabel = "KIND[,KIND...]",
      description = "the fault kinds, run in turn (default: every kind)")
  String faults;

  @Option(names = "--rate", converter = Converters.WholeNumber.class, defaultValue = "200",
      description = "records per second over all producers (default ${DEFAULT-VALUE})")
  long rate;

  @Option(names = "--seed", converter = Converters.WholeNumber.class,
      description = "picks the victims and the order of the faults (default: random, printed)")
  Long seed;

  @Option(names = "--brokers", defaultValue = "3", description = "default ${DEFAULT-VALUE}")
  int brokers;

  @Option(names = "--shards", defaultValue = "6", description = "default ${DEFAULT-VALUE}")
  int shards;

  @Option(names = "--producers", defaultValue = "2", description = "default ${DEFAULT-VALUE}")
  int producers;

  @Option(names = "--writable-within", converter = Converters.PositiveDuration.class, defaultValue = "30s",
      description = "bound on the time from a fault until every shard acknowledges a write (default ${DEFAULT-VALUE})")
  Duration writableWithin;

  @Option(names = "--dir", defaultValue = "data/chaos",
      description = "where the local cluster lives, emptied first (default ${DEFAULT-VALUE})")
  Path dir;

  @Option(names = "--partition-hold", converter = Converters.PositiveDuration.class, defaultValue = "10s",
      description = "how long a partition fault stays cut, at least until every shard is writable again (default "
          + "${DEFAULT-VALUE}: past the split brain resolver's decision)")
  Duration partitionHold;

  @Override
  public Integer call() throws InterruptedException {
    ChaosOptions options = options();
    PrintStream out = Felix.out(spec);
    try {
      return ChaosRun.execute(options, Map.of(), out).exitStatus();
    } catch (IOException e) {
      spec.commandLine().getErr().println("chaos: " + e.getMessage());
      return 1;
    }
  }

  /** The options given, checked; a bad value is a usage error naming its option. */
  ChaosOptions options() {
    List<FaultKind> kinds;
    try {
      kinds = FaultKind.parseList(faults == null ? FaultKind.known() : faults);
      String noPartitions = faults == null ? LoopbackPartition.unavailableReason() : null;
      if (noPartitions != null) {
        // Every kind by default, but a machine without iptables (or root) can still run the others.
        kinds = kinds.stream().filter(k -> !k.partition()).toList();
        spec.commandLine().getErr().println("chaos: leaving out the partition faults: " + noPartitions);
      }
    } catch (UsageException e) {
      throw Ranges.usage(spec, e.getMessage());
    }
    return new ChaosOptions(duration, kinds,
        Ranges.within(spec, "--rate", rate, 1, 100_000),
        seed == null ? new SecureRandom().nextLong() & Long.MAX_VALUE
            : Ranges.within(spec, "--seed", seed, 0, Long.MAX_VALUE),
        Ranges.within(spec, "--brokers", brokers, 3, 9),
        Ranges.within(spec, "--shards", shards, 1, 256),
        Ranges.within(spec, "--producers", producers, 1, 64),
        writableWithin, dir, partitionHold);
  }

  /** Parses {@code chaos}'s options alone (the chaos process tests start runs this way); bad usage names the option. */
  public static ChaosOptions parse(List<String> args) throws UsageException {
    ChaosCommand command = new ChaosCommand();
    try {
      new CommandLine(command).parseArgs(args.toArray(String[]::new));
      return command.options();
    } catch (ParameterException e) {
      throw new UsageException(e.getMessage());
    }
  }
}
