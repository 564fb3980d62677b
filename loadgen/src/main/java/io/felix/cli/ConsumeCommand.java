package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.loadgen.ConsumeOptions;
import io.felix.loadgen.ConsumeRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code felix consume STREAM}: the console consumer (one line per record: shard, offset, key, value); and
 * {@code felix consume --stream NAME [load options]}: the load generator's reader and verifier ({@link ConsumeRun}).
 */
@Command(name = "consume", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"consume STREAM: prints one line per record, 'SHARD OFFSET KEY VALUE' (tab separated; "
        + "--output json: one JSON object per line).",
        "consume --stream NAME [load options]: the load generator's reader, with --verify."})
final class ConsumeCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Parameters(arity = "0..1", paramLabel = "STREAM", description = "console consumer: the stream to read")
  String stream;

  @Option(names = "--from-beginning",
      description = "read each shard from its log start (default: from the end when reading starts); with "
          + "--stream NAME: up to the end seen when reading started")
  boolean fromBeginning;

  @Option(names = "--max", paramLabel = "N", description = "console consumer: stop after N records")
  Long max;

  @Option(names = "--follow", description = "console consumer: keep waiting for new records (until --max or Ctrl-C)")
  boolean follow;

  @Option(names = "--shard", paramLabel = "N", description = "console consumer: read only this shard")
  Integer shard;

  @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "console consumer: table (tab separated lines) or json (one object per record)")
  Output.Format format;

  @Option(names = "--mode", converter = Converters.ModeWord.class, defaultValue = "cluster",
      description = "cluster (each shard from its leader) or plain (through one broker); default ${DEFAULT-VALUE}")
  ClientMode mode;

  @ArgGroup(exclusive = false, validate = false, heading = "%nLoad generator (consume --stream NAME ...):%n")
  LoadOptions load;

  /** The load generator's own options; present when any of them is given. */
  static final class LoadOptions {
    @Option(names = "--stream", paramLabel = "NAME", description = "load generator: the stream to read")
    String stream;

    @Option(names = "--verify", description = "check every record against the load generator's format")
    boolean verify;

    @Option(names = "--expect", paramLabel = "PRODUCE_JSON",
        description = "with --verify: the produce --json file (missing = acknowledged and not found)")
    Path expect;

    @Option(names = "--json", paramLabel = "FILE", description = "write the summary as JSON")
    Path json;

    @Option(names = "--idle", converter = Converters.PositiveDuration.class, defaultValue = "5s",
        description = "stop reading a shard after this long without progress (default ${DEFAULT-VALUE})")
    Duration idle = Duration.ofSeconds(5);

    @Option(names = "--max-bytes", defaultValue = "1048576", description = "bytes per fetch (default ${DEFAULT-VALUE})")
    int maxBytes = 1024 * 1024;

    @Option(names = "--group", paramLabel = "GROUP",
        description = "read as a member of this consumer group (its shards, from its committed offsets) until idle")
    String group;

    @Option(names = "--members", paramLabel = "N", defaultValue = "1",
        description = "with --group: N members side by side in this process (default ${DEFAULT-VALUE})")
    int members = 1;

    @Option(names = "--churn", paramLabel = "DURATION", converter = Converters.PositiveDuration.class,
        description = "with --group: every DURATION the oldest member leaves (commits, then leaves) and a new one "
            + "joins; --verify then checks that the members together read every record once")
    Duration churn;
  }

  @Override
  public Integer call() throws Exception {
    if (load != null) {
      if (stream != null) {
        throw Ranges.usage(spec, "give the stream either as STREAM (console consumer) or as --stream NAME "
            + "(load generator), not both");
      }
      return new ConsumeRun(loadOptions(), Felix.of(spec).out()).run();
    }
    if (stream == null) {
      throw Ranges.usage(spec, "which stream? give STREAM (console consumer) or --stream NAME (load generator)");
    }
    if (max != null) {
      Ranges.within(spec, "--max", max, 1, Long.MAX_VALUE);
    }
    return new ConsoleConsumer(this).run();
  }

  /** The load generator's options, checked; a bad value is a usage error naming its option. */
  ConsumeOptions loadOptions() {
    if (load.stream == null || load.stream.isBlank()) {
      throw Ranges.usage(spec, "--stream is required for the load generator");
    }
    if (max != null || follow || shard != null) {
      throw Ranges.usage(spec, "--max, --follow and --shard are options of the console consumer (consume STREAM)");
    }
    if (load.expect != null && !load.verify) {
      throw Ranges.usage(spec, "--expect is only meaningful with --verify");
    }
    if (load.group == null && (load.members != 1 || load.churn != null)) {
      throw Ranges.usage(spec, "--members and --churn are options of a group reader: give --group too");
    }
    return new ConsumeOptions(endpoints.bootstrap(), load.stream, mode, fromBeginning, load.verify, load.expect,
        load.json, load.idle, Ranges.within(spec, "--max-bytes", load.maxBytes, 1024, 8 * 1024 * 1024 - 64 * 1024),
        load.group, endpoints.credentials(), Ranges.within(spec, "--members", load.members, 1, 64), load.churn,
        endpoints.tls());
  }

  FelixClient client() {
    return new FelixClient(ClientSettings.builder(endpoints.bootstrap()).mode(mode)
        .credentials(endpoints.credentials()).tls(endpoints.tls()).build());
  }
}
