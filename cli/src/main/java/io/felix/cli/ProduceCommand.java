package io.felix.cli;

import com.google.protobuf.ByteString;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.loadgen.StreamCheck;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.Header;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code felix produce STREAM}: the console producer, as Kafka's: each line of stdin becomes one record, its value
 * the line; with {@code --key-separator SEP} the line is {@code KEY SEP VALUE} (split at the first SEP), else every
 * record has {@code --key} (or none). The load generator is {@code felix perf produce}.
 */
@Command(name = "produce", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"Each line of stdin becomes one record (its value; with --key-separator, KEY<SEP>VALUE); prints "
        + "the number of records acknowledged on stderr (exit 1 if any was not).",
        "The load generator is 'felix perf produce --stream NAME ...'."})
final class ProduceCommand implements Callable<Integer> {
  /** Records the console producer keeps unanswered before it stops reading stdin. */
  private static final int CONSOLE_OUTSTANDING = 10_000;

  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Parameters(paramLabel = "STREAM", description = "the stream to write to")
  String stream;

  @Option(names = "--key", description = "the key of every record (default: none)")
  String key;

  @Option(names = "--key-separator", paramLabel = "SEP",
      description = "each line is KEY<SEP>VALUE, split at the first SEP (a line without it is an error)")
  String keySeparator;

  @Option(names = "--header", paramLabel = "KEY=VALUE", mapFallbackValue = "",
      description = "a header of every record (repeatable)")
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

  /** One line of input as a record's key (null: none) and value. */
  record Line(byte[] key, byte[] value) {}

  @Override
  public Integer call() throws Exception {
    if (key != null && keySeparator != null) {
      throw Ranges.usage(spec, "--key and --key-separator exclude each other: a record's key is either fixed or read "
          + "from its line");
    }
    if (keySeparator != null && keySeparator.isEmpty()) {
      throw Ranges.usage(spec, "--key-separator must not be empty");
    }
    return produce();
  }

  /** The record of input line {@code number}; a line without the separator (when keys are read) fails the command. */
  Line parse(String line, long number) throws CommandFailure {
    if (keySeparator == null) {
      return new Line(key == null ? null : key.getBytes(StandardCharsets.UTF_8), line.getBytes(StandardCharsets.UTF_8));
    }
    int at = line.indexOf(keySeparator);
    if (at < 0) {
      throw new CommandFailure("line " + number + " has no key separator '" + keySeparator + "': " + line);
    }
    return new Line(line.substring(0, at).getBytes(StandardCharsets.UTF_8),
        line.substring(at + keySeparator.length()).getBytes(StandardCharsets.UTF_8));
  }

  private int produce() throws CommandFailure, InterruptedException, IOException {
    List<Header> recordHeaders = new ArrayList<>();
    headers.forEach((k, v) -> recordHeaders.add(Header.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v))
        .build()));
    AtomicLong acknowledged = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    AtomicReference<String> firstFailure = new AtomicReference<>();
    Semaphore outstanding = new Semaphore(CONSOLE_OUTSTANDING);
    long sent = 0;
    CommandFailure badLine = null;
    try (FelixClient client = new FelixClient(ClientSettings.builder(endpoints.bootstrap()).mode(mode).acks(acks)
        .idempotence(!noIdempotence).credentials(endpoints.credentials()).tls(endpoints.tls()).build())) {
      String problem = StreamCheck.problem(client, stream);
      if (problem != null) {
        throw new CommandFailure(problem);
      }
      BufferedReader lines = new BufferedReader(new InputStreamReader(Felix.of(spec).in(), StandardCharsets.UTF_8));
      long number = 0;
      for (String text = lines.readLine(); text != null; text = lines.readLine()) {
        Line line;
        try {
          line = parse(text, ++number);
        } catch (CommandFailure e) {
          badLine = e; // the records before it are sent and waited for; nothing after it
          break;
        }
        outstanding.acquire();
        sent++;
        client.produce(stream, line.key(), line.value(), recordHeaders)
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
    if (badLine != null) {
      throw new CommandFailure(badLine.getMessage() + " (the " + acknowledged.get() + " records before it were "
          + "produced; nothing after it)");
    }
    spec.commandLine().getErr().println("produced " + acknowledged.get() + " records to " + stream);
    return 0;
  }
}
