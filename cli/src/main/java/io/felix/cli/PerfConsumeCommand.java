package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.loadgen.ConsumeOptions;
import io.felix.loadgen.ConsumeRun;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code felix perf consume --stream NAME [options]}: the load generator's reader and verifier ({@link ConsumeRun}). */
@Command(name = "consume", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Reads a stream shard by shard until --idle passes without progress; --verify checks every record "
        + "of the load generator (corrupt, duplicated, out of order, missing), against a produce ledger with --expect.")
final class PerfConsumeCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Option(names = "--stream", paramLabel = "NAME", required = true, description = "the stream to read")
  String stream;

  @Option(names = "--from-beginning",
      description = "read each shard from its log start up to the end seen when reading started (default: from that "
          + "end on, until --idle)")
  boolean fromBeginning;

  @Option(names = "--mode", converter = Converters.ModeWord.class, defaultValue = "cluster",
      description = "cluster (each shard from its leader) or plain (through one broker); default ${DEFAULT-VALUE}")
  ClientMode mode;

  @Option(names = "--verify", description = "check every record against the load generator's format")
  boolean verify;

  @Option(names = "--expect", paramLabel = "PRODUCE_JSON",
      description = "with --verify: the perf produce --json file (missing = acknowledged and not found)")
  Path expect;

  @Option(names = "--json", paramLabel = "FILE", description = "write the summary as JSON")
  Path json;

  @Option(names = "--idle", converter = Converters.PositiveDuration.class, defaultValue = "5s",
      description = "stop reading a shard after this long without progress (default ${DEFAULT-VALUE})")
  Duration idle;

  @Option(names = "--max-bytes", defaultValue = "1048576", description = "bytes per fetch (default ${DEFAULT-VALUE})")
  int maxBytes;

  @Option(names = "--group", paramLabel = "GROUP",
      description = "read as a member of this consumer group (its shards, from its committed offsets) until idle")
  String group;

  @Option(names = "--members", paramLabel = "N", defaultValue = "1",
      description = "with --group: N members side by side in this process (default ${DEFAULT-VALUE})")
  int members;

  @Option(names = "--churn", paramLabel = "DURATION", converter = Converters.PositiveDuration.class,
      description = "with --group: every DURATION the oldest member leaves (commits, then leaves) and a new one "
          + "joins; --verify then checks that the members together read every record once")
  Duration churn;

  @Override
  public Integer call() throws Exception {
    return new ConsumeRun(options(), Felix.out(spec)).run();
  }

  /** The options given, checked; a bad value is a usage error naming its option. */
  ConsumeOptions options() {
    if (stream.isBlank()) {
      throw Ranges.usage(spec, "--stream needs a name");
    }
    if (expect != null && !verify) {
      throw Ranges.usage(spec, "--expect is only meaningful with --verify");
    }
    if (group == null && (members != 1 || churn != null)) {
      throw Ranges.usage(spec, "--members and --churn are options of a group reader: give --group too");
    }
    return new ConsumeOptions(endpoints.bootstrap(), stream, mode, fromBeginning, verify, expect, json, idle,
        Ranges.within(spec, "--max-bytes", maxBytes, 1024, 8 * 1024 * 1024 - 64 * 1024), group,
        endpoints.credentials(), Ranges.within(spec, "--members", members, 1, 64), churn, endpoints.tls());
  }
}
