package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.launcher.BrokerCpu;
import io.felix.launcher.LocalLayout;
import io.felix.loadgen.ProduceOptions;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.RecordFormat;
import io.felix.protocol.client.Acks;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code felix perf produce --stream NAME [options]}: the load generator's producers ({@link ProduceRun}); with
 * {@code --broker-cpu}, the local cluster's broker CPU during the run too.
 */
@Command(name = "produce", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Generated records at --rate for --duration or --records; a progress line a second, then a "
        + "summary with latency percentiles; --json writes the ledger 'perf consume --verify --expect' reads.")
final class PerfProduceCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Option(names = "--stream", paramLabel = "NAME", required = true, description = "the stream to write to")
  String stream;

  @Option(names = "--acks", converter = Converters.AcksWord.class, defaultValue = "quorum",
      description = "quorum (a majority stored it), all (every in-sync replica) or leader; default ${DEFAULT-VALUE}")
  Acks acks;

  @Option(names = "--mode", converter = Converters.ModeWord.class, defaultValue = "cluster",
      description = "cluster (each batch to its shard's leader) or plain (one broker forwards); default "
          + "${DEFAULT-VALUE}")
  ClientMode mode;

  @Option(names = "--no-idempotence", description = "turn the idempotent producer off: an ambiguous failure then "
      + "fails its records instead of being retried (default: on, each batch stored once)")
  boolean noIdempotence;

  @Option(names = "--record-size", defaultValue = "1024", description = "bytes per record (default ${DEFAULT-VALUE})")
  int recordSize;

  @Option(names = "--rate", converter = Converters.WholeNumber.class, defaultValue = "0",
      description = "records per second over all producers; 0 = unbounded (default)")
  long rate;

  @Option(names = "--duration", converter = Converters.PositiveDuration.class,
      description = "how long to produce (default 30s; excludes --records)")
  Duration duration;

  @Option(names = "--records", converter = Converters.WholeNumber.class,
      description = "records in all (excludes --duration)")
  Long records;

  @Option(names = "--producers", defaultValue = "4", description = "producer threads (default ${DEFAULT-VALUE})")
  int producers;

  @Option(names = "--key-space", converter = Converters.WholeNumber.class, defaultValue = "0",
      description = "0 = no keys; N = keys k0..k{N-1} (default 0)")
  long keySpace;

  @Option(names = "--json", paramLabel = "FILE", description = "write the summary and the ledger as JSON")
  Path json;

  @Option(names = "--linger", converter = Converters.PositiveDuration.class, defaultValue = "5ms",
      description = "how long a batch waits for more records (default ${DEFAULT-VALUE})")
  Duration linger;

  @Option(names = "--batch-size", defaultValue = "262144", description = "bytes per batch (default ${DEFAULT-VALUE})")
  int batchSize;

  @Option(names = "--max-outstanding", defaultValue = "10000",
      description = "unanswered records per producer (default ${DEFAULT-VALUE})")
  int maxOutstanding;

  @Option(names = "--warmup", converter = Converters.PositiveDuration.class,
      description = "produce this long first, at the same rate, and leave it out of the figures (with --duration)")
  Duration warmup;

  @Option(names = "--broker-cpu",
      description = "also print the CPU each broker of the local cluster (FELIX_LOCAL_DIR) used during the run, and "
          + "the CPU-ms per MiB acknowledged")
  boolean brokerCpu;

  @Override
  public Integer call() throws Exception {
    ProduceOptions options = options();
    PrintStream out = Felix.out(spec);
    LocalLayout layout = brokerCpu ? localLayout() : null;
    AtomicReference<BrokerCpu> before = new AtomicReference<>();
    AtomicLong started = new AtomicLong();
    ProduceRun run = new ProduceRun(options, out);
    if (brokerCpu) {
      run.whenMeasuring(() -> {
        before.set(BrokerCpu.sample(layout));
        started.set(System.nanoTime());
      });
    }
    int status = run.run();
    if (brokerCpu && before.get() != null) {
      Duration wall = Duration.ofNanos(System.nanoTime() - started.get());
      BrokerCpu used = BrokerCpu.sample(layout).since(before.get());
      out.printf(Locale.ROOT, "-- broker CPU during the load (%.1f s)%n", wall.toNanos() / 1e9);
      out.print(used.table(wall));
      double mib = run.acknowledged() * (double) options.recordSize() / (1 << 20);
      double cpuSeconds = used.total().toNanos() / 1e9;
      out.printf(Locale.ROOT, "broker CPU: %.1f s for %.0f MiB acknowledged = %s CPU-ms per MiB%n", cpuSeconds, mib,
          mib > 0 ? String.format(Locale.ROOT, "%.1f", cpuSeconds * 1000 / mib) : "-");
    }
    return status;
  }

  /** The options given, checked; a bad value is a usage error naming its option. */
  ProduceOptions options() {
    if (stream.isBlank()) {
      throw Ranges.usage(spec, "--stream needs a name");
    }
    if (duration != null && records != null) {
      throw Ranges.usage(spec, "--duration and --records exclude each other: give one");
    }
    if (warmup != null && records != null) {
      throw Ranges.usage(spec, "--warmup needs --duration, not --records");
    }
    long count = records == null ? 0 : Ranges.within(spec, "--records", records, 1, Long.MAX_VALUE);
    return new ProduceOptions(
        endpoints.bootstrap(),
        stream,
        mode,
        Ranges.within(spec, "--record-size", recordSize, RecordFormat.HEADER_BYTES, 4 * 1024 * 1024),
        Ranges.within(spec, "--rate", rate, 0, 100_000_000),
        count > 0 ? null : duration == null ? Duration.ofSeconds(30) : duration,
        count,
        Ranges.within(spec, "--producers", producers, 1, 1024),
        acks,
        Ranges.within(spec, "--key-space", keySpace, 0, Long.MAX_VALUE),
        json,
        linger,
        Ranges.within(spec, "--batch-size", batchSize, 1, 4 * 1024 * 1024),
        Ranges.within(spec, "--max-outstanding", maxOutstanding, 1, 10_000_000),
        !noIdempotence,
        endpoints.credentials(), endpoints.tls(), warmup == null ? Duration.ZERO : warmup);
  }

  private LocalLayout localLayout() {
    LocalLayout layout;
    try {
      layout = LocalLayout.fromEnvironment(Felix.of(spec).environment());
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, e.getMessage());
    }
    if (layout.knownBrokers().isEmpty()) {
      throw Ranges.usage(spec, "--broker-cpu measures the brokers of the local cluster, and " + layout.dir()
          + " holds none (start one with 'felix local up', or set FELIX_LOCAL_DIR)");
    }
    return layout;
  }
}
