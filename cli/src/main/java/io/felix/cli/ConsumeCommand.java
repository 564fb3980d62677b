package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code felix consume STREAM}: the console consumer, as Kafka's: one line per record (shard, offset, key, value),
 * from the end (default), the beginning ({@code --from-beginning}) or an offset of one shard ({@code --shard N
 * --offset O}), or as a member of a consumer group ({@code --group G}: its shards, from its committed offsets, the
 * positions committed as it reads). The load generator's reader is {@code felix perf consume}.
 */
@Command(name = "consume", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Prints one line per record, 'SHARD OFFSET KEY VALUE' (tab separated; --output json: one JSON "
        + "object per line).",
        "The load generator's reader is 'felix perf consume --stream NAME ...'."})
final class ConsumeCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Parameters(paramLabel = "STREAM", description = "the stream to read")
  String stream;

  @Option(names = "--from-beginning",
      description = "read each shard from its log start (default: from the end when reading starts); with --group: "
          + "where the group has committed nothing yet")
  boolean fromBeginning;

  @Option(names = "--offset", paramLabel = "earliest|latest|N", converter = StartConverter.class,
      description = "where to start: earliest, latest (default) or an offset of the shard given with --shard")
  Start offset;

  @Option(names = "--shard", paramLabel = "N", description = "read only this shard")
  Integer shard;

  @Option(names = "--group", paramLabel = "GROUP",
      description = "read as a member of this consumer group: the shards it is assigned, from the group's committed "
          + "offsets, committing what it printed")
  String group;

  @Option(names = "--max", paramLabel = "N", description = "stop after N records")
  Long max;

  @Option(names = "--follow", description = "keep waiting for new records (until --max or Ctrl-C)")
  boolean follow;

  @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "table (tab separated lines) or json (one object per record)")
  Output.Format format;

  @Option(names = "--mode", converter = Converters.ModeWord.class, defaultValue = "cluster",
      description = "cluster (each shard from its leader) or plain (through one broker); default ${DEFAULT-VALUE}")
  ClientMode mode;

  /** Where reading starts: the log start, the end, or an offset. */
  record Start(Kind kind, long offset) {
    enum Kind { EARLIEST, LATEST, OFFSET }
  }

  /** --offset's words: earliest, latest or a whole number of at least 0. */
  static final class StartConverter implements ITypeConverter<Start> {
    @Override
    public Start convert(String value) {
      switch (value.toLowerCase(Locale.ROOT)) {
        case "earliest":
          return new Start(Start.Kind.EARLIEST, 0);
        case "latest":
          return new Start(Start.Kind.LATEST, 0);
        default:
          try {
            long n = Long.parseLong(value.replace("_", ""));
            if (n >= 0) {
              return new Start(Start.Kind.OFFSET, n);
            }
          } catch (NumberFormatException notANumber) {
            // named below
          }
          throw new TypeConversionException("expected earliest, latest or an offset of at least 0, got '" + value
              + "'");
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    if (max != null) {
      Ranges.within(spec, "--max", max, 1, Long.MAX_VALUE);
    }
    if (offset != null && fromBeginning) {
      throw Ranges.usage(spec, "--offset and --from-beginning exclude each other (--from-beginning is --offset "
          + "earliest)");
    }
    if (offset != null && offset.kind() == Start.Kind.OFFSET && shard == null) {
      throw Ranges.usage(spec, "--offset N needs --shard: an offset belongs to one shard");
    }
    if (group != null) {
      if (group.isBlank()) {
        throw Ranges.usage(spec, "--group needs a name");
      }
      if (shard != null || offset != null && offset.kind() == Start.Kind.OFFSET) {
        throw Ranges.usage(spec, "--shard and --offset N are for a reader outside a group: a group member reads the "
            + "shards it is assigned, from the group's committed offsets");
      }
      return new GroupConsoleConsumer(this).run();
    }
    return new ConsoleConsumer(this).run();
  }

  /** Where reading starts: --offset, else --from-beginning, else the end. */
  Start start() {
    return offset != null ? offset : new Start(fromBeginning ? Start.Kind.EARLIEST : Start.Kind.LATEST, 0);
  }

  FelixClient client() {
    return new FelixClient(ClientSettings.builder(endpoints.bootstrap()).mode(mode)
        .credentials(endpoints.credentials()).tls(endpoints.tls()).build());
  }
}
