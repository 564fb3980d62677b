package io.felix.cli;

import com.google.protobuf.ByteString;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.loadgen.ProduceOptions;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.RecordFormat;
import io.felix.loadgen.StreamCheck;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.Header;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code felix produce STREAM}: the console producer (each line of stdin becomes one record's value); and
 * {@code felix produce --stream NAME [load options]}: the load generator ({@link ProduceRun}), with the option
 * names it always had.
 */
@Command(name = "produce", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"produce STREAM: each line of stdin becomes one record (its value); prints the number of "
        + "records acknowledged on stderr (exit 1 if any was not).",
        "produce --stream NAME [load options]: the load generator (generated records at --rate for --duration "
            + "or --records)."})
final class ProduceCommand implements Callable<Integer> {
  /** Records the console producer keeps unanswered before it stops reading stdin. */
  private static final int CONSOLE_OUTSTANDING = 10_000;

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Parameters(arity = "0..1", paramLabel = "STREAM", description = "console producer: the stream to write to")
  String stream;

  @Option(names = "--key", description = "console producer: the key of every record (default: none)")
  String key;

  @Option(names = "--header", paramLabel = "KEY=VALUE", mapFallbackValue = "",
      description = "console producer: a header of every record (repeatable)")
  Map<String, String> headers = new LinkedHashMap<>();

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

  @ArgGroup(exclusive = false, validate = false, heading = "%nLoad generator (produce --stream NAME ...):%n")
  LoadOptions load;

  /** The load generator's own options; present when any of them is given. */
  static final class LoadOptions {
    @Option(names = "--stream", paramLabel = "NAME", description = "load generator: the stream to write to")
    String stream;

    @Option(names = "--record-size", defaultValue = "1024", description = "bytes per record (default ${DEFAULT-VALUE})")
    int recordSize = 1024;

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
    int producers = 4;

    @Option(names = "--key-space", converter = Converters.WholeNumber.class, defaultValue = "0",
        description = "0 = no keys; N = keys k0..k{N-1} (default 0)")
    long keySpace;

    @Option(names = "--json", paramLabel = "FILE", description = "write the summary as JSON")
    Path json;

    @Option(names = "--linger", converter = Converters.PositiveDuration.class, defaultValue = "5ms",
        description = "how long a batch waits for more records (default ${DEFAULT-VALUE})")
    Duration linger;

    @Option(names = "--batch-size", defaultValue = "262144", description = "bytes per batch (default ${DEFAULT-VALUE})")
    int batchSize = 256 * 1024;

    @Option(names = "--max-outstanding", defaultValue = "10000",
        description = "unanswered records per producer (default ${DEFAULT-VALUE})")
    int maxOutstanding = 10_000;
  }

  @Override
  public Integer call() throws Exception {
    if (load != null) {
      if (stream != null) {
        throw Ranges.usage(spec, "give the stream either as STREAM (console producer) or as --stream NAME "
            + "(load generator), not both");
      }
      return new ProduceRun(loadOptions(), Felix.of(spec).out()).run();
    }
    if (stream == null) {
      throw Ranges.usage(spec, "which stream? give STREAM (console producer) or --stream NAME (load generator)");
    }
    return console();
  }

  /** The load generator's options, checked; a bad value is a usage error naming its option. */
  ProduceOptions loadOptions() {
    if (load.stream == null || load.stream.isBlank()) {
      throw Ranges.usage(spec, "--stream is required for the load generator");
    }
    if (key != null || !headers.isEmpty()) {
      throw Ranges.usage(spec, "--key and --header are options of the console producer (produce STREAM)");
    }
    if (load.duration != null && load.records != null) {
      throw Ranges.usage(spec, "--duration and --records exclude each other: give one");
    }
    long records = load.records == null ? 0 : Ranges.within(spec, "--records", load.records, 1, Long.MAX_VALUE);
    return new ProduceOptions(
        endpoints.bootstrap(),
        load.stream,
        mode,
        Ranges.within(spec, "--record-size", load.recordSize, RecordFormat.HEADER_BYTES, 4 * 1024 * 1024),
        Ranges.within(spec, "--rate", load.rate, 0, 100_000_000),
        records > 0 ? null : load.duration == null ? Duration.ofSeconds(30) : load.duration,
        records,
        Ranges.within(spec, "--producers", load.producers, 1, 1024),
        acks,
        Ranges.within(spec, "--key-space", load.keySpace, 0, Long.MAX_VALUE),
        load.json,
        load.linger,
        Ranges.within(spec, "--batch-size", load.batchSize, 1, 4 * 1024 * 1024),
        Ranges.within(spec, "--max-outstanding", load.maxOutstanding, 1, 10_000_000),
        !noIdempotence,
        endpoints.credentials(), endpoints.tls());
  }

  private int console() throws CommandFailure, InterruptedException, IOException {
    List<Header> recordHeaders = new ArrayList<>();
    headers.forEach((k, v) -> recordHeaders.add(Header.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v))
        .build()));
    byte[] keyBytes = key == null ? null : key.getBytes(StandardCharsets.UTF_8);
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<String> firstFailure = new AtomicReference<>();
    Semaphore outstanding = new Semaphore(CONSOLE_OUTSTANDING);
    long sent = 0;
    try (FelixClient client = new FelixClient(ClientSettings.builder(endpoints.bootstrap()).mode(mode).acks(acks)
        .idempotence(!noIdempotence).credentials(endpoints.credentials()).tls(endpoints.tls()).build())) {
      String problem = StreamCheck.problem(client, stream);
      if (problem != null) {
        throw new CommandFailure(problem);
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(Felix.of(spec).in(), StandardCharsets.UTF_8));
      for (String line = lines.readLine(); line != null; line = lines.readLine()) {
        outstanding.acquire();
        sent++;
        client.produce(stream, keyBytes, line.getBytes(StandardCharsets.UTF_8), recordHeaders)
            .whenComplete((metadata, failure) -> {
              if (failure == null) {
                acknowledged.incrementAndGet();
              } else {
                failed.incrementAndGet();
                firstFailure.compareAndSet(null, FelixException.from(failure).getMessage());
              }
              outstanding.release();
            });
      }
      client.flush();
      outstanding.acquire(CONSOLE_OUTSTANDING);
    }
    if (failed.get() > 0) {
      throw new CommandFailure(failed.get() + " of " + sent + " records not acknowledged (first: "
          + firstFailure.get() + ")");
    }
    spec.commandLine().getErr().println("produced " + acknowledged.get() + " records to " + stream);
    return 0;
  }
}
