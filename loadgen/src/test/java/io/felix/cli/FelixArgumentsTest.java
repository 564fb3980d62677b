package io.felix.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeOptions;
import io.felix.loadgen.ProduceOptions;
import io.felix.protocol.client.Acks;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** How felix parses its command lines: one way for every command (picocli), usage errors exit with 2. */
class FelixArgumentsTest {

  record Outcome(int code, String out, String err) {
    String firstErrorLine() {
      return err.lines().findFirst().orElse("");
    }
  }

  static Outcome run(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Felix.run(args, InputStream.nullInputStream(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), env);
    return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The first line of the usage error of {@code args}, which must exit with 2, print nothing on stdout and the usage. */
  private static String usageError(String... args) {
    Outcome o = run(Map.of(), args);
    assertEquals(2, o.code(), "bad usage exits with 2: " + o);
    assertEquals("", o.out(), "nothing on stdout");
    assertTrue(o.err().contains("Usage: felix"), "the usage follows the error: " + o.err());
    return o.firstErrorLine();
  }

  private static String loadUsageError(String command, String... flags) {
    List<String> args = new ArrayList<>(List.of(command, "--bootstrap", "h:1", "--stream", "s"));
    args.addAll(List.of(flags));
    return usageError(args.toArray(String[]::new));
  }

  private static <T> T parsed(Class<T> type, Map<String, String> env, String... args) {
    CommandLine cli = Felix.commandLine(new Felix(InputStream.nullInputStream(), System.out, System.err, env));
    CommandLine.ParseResult result = cli.parseArgs(args);
    return type.cast(result.subcommand().commandSpec().userObject());
  }

  private static ProduceOptions produce(String... args) {
    List<String> all = new ArrayList<>(List.of("produce"));
    all.addAll(List.of(args));
    return parsed(ProduceCommand.class, Map.of(), all.toArray(String[]::new)).loadOptions();
  }

  @Test
  void loadProduceDefaultsAreTheDocumentedOnes() {
    ProduceOptions o = produce("--bootstrap", "127.0.0.1:9001,127.0.0.1:9002", "--stream", "s");
    assertEquals(List.of(new HostPort("127.0.0.1", 9001), new HostPort("127.0.0.1", 9002)), o.bootstrap());
    assertEquals(ClientMode.CLUSTER, o.mode());
    assertEquals(1024, o.recordSize());
    assertEquals(0, o.rate());
    assertEquals(Duration.ofSeconds(30), o.duration());
    assertEquals(0, o.records());
    assertEquals(4, o.producers());
    assertEquals(Acks.QUORUM, o.acks());
    assertEquals(0, o.keySpace());
    assertNull(o.json());
    assertTrue(o.idempotence(), "idempotence is on by default");
  }

  @Test
  void loadProduceOptionsInBothSpellings() {
    ProduceOptions o = produce("--bootstrap=h:1", "--stream", "orders", "--mode", "plain",
        "--record-size=100", "--rate", "5000", "--records", "1000", "--producers", "2", "--acks", "ALL",
        "--key-space", "64", "--json", "out.json", "--no-idempotence");
    assertEquals(ClientMode.PLAIN, o.mode());
    assertFalse(o.idempotence());
    assertEquals(100, o.recordSize());
    assertEquals(5000, o.rate());
    assertNull(o.duration());
    assertEquals(1000, o.records());
    assertEquals(2, o.producers());
    assertEquals(Acks.ALL, o.acks());
    assertEquals(64, o.keySpace());
    assertEquals(Path.of("out.json"), o.json());
    assertEquals(Duration.ofSeconds(20), produce("--stream", "s", "--duration=20s").duration());
    assertEquals(Duration.ofSeconds(20), produce("--stream", "s", "--duration", "20s").duration());
    assertEquals(Duration.ofMillis(500), produce("--stream", "s", "--duration", "500ms").duration());
    assertEquals(Duration.ofMinutes(2), produce("--stream", "s", "--duration", "2m").duration());
  }

  @Test
  void addressesComeFromTheFlagThenTheEnvironmentThenTheProfileThenTheLocalDefault(@TempDir Path dir)
      throws Exception {
    Path profile = dir.resolve("profile");
    Files.writeString(profile, "bootstrap=p:3\nadmin=p:4\n");
    Map<String, String> env = Map.of("FELIX_BOOTSTRAP", "e:1", "FELIX_PROFILE", profile.toString());
    assertEquals(List.of(new HostPort("f", 9)), parsed(ProduceCommand.class, env, "produce", "--bootstrap", "f:9",
        "s").endpoints.bootstrap());
    assertEquals(List.of(new HostPort("e", 1)), parsed(ProduceCommand.class, env, "produce", "s")
        .endpoints.bootstrap());
    assertEquals(List.of(new HostPort("p", 4)), parsed(ProduceCommand.class, env, "produce", "s")
        .endpoints.admin());
    assertEquals(List.of(new HostPort("127.0.0.1", 18080)), parsed(ProduceCommand.class, Map.of(), "produce", "s")
        .endpoints.admin());
  }

  @Test
  void badValuesNameTheOptionAndExitWithTwo() {
    assertEquals("Invalid value for option '--rate': expected a whole number, got 'fast'",
        loadUsageError("produce", "--rate", "fast"));
    assertEquals("--rate: expected a number from 0 to 100000000, got -5",
        loadUsageError("produce", "--rate", "-5"));
    assertEquals("--record-size: expected a number from 28 to 4194304, got 10",
        loadUsageError("produce", "--record-size", "10"));
    assertEquals("Invalid value for option '--duration': expected a duration like 500ms, 30s, 5m or 1h, got '30'",
        loadUsageError("produce", "--duration", "30"));
    assertEquals("Invalid value for option '--acks': expected one of quorum, all, leader, got 'some'",
        loadUsageError("produce", "--acks", "some"));
    assertEquals("Invalid value for option '--mode': expected one of cluster, plain, got 'direct'",
        loadUsageError("produce", "--mode", "direct"));
    assertEquals("--bootstrap: address must be host:port, got 'localhost'",
        usageError("produce", "--bootstrap", "localhost", "--stream", "s"));
    assertEquals("--duration and --records exclude each other: give one",
        loadUsageError("produce", "--duration", "1s", "--records", "5"));
    assertEquals("Unknown options: '--speed', '3'", usageError("produce", "s", "--speed", "3"));
    assertTrue(usageError("produce", "--producers").startsWith("Missing required parameter for option '--producers'"));
    assertEquals("which stream? give STREAM (console producer) or --stream NAME (load generator)",
        usageError("produce"));
    assertEquals("give the stream either as STREAM (console producer) or as --stream NAME (load generator), not both",
        usageError("produce", "a", "--stream", "b"));
  }

  @Test
  void loadConsumeOptions() {
    ConsumeOptions o = parsed(ConsumeCommand.class, Map.of(), "consume", "--bootstrap", "h:1", "--stream", "s",
        "--from-beginning", "--verify", "--expect", "p.json").loadOptions();
    assertTrue(o.fromBeginning());
    assertTrue(o.verify());
    assertEquals(Path.of("p.json"), o.expect());
    assertEquals(Duration.ofSeconds(5), o.idle());
    assertEquals("--expect is only meaningful with --verify", loadUsageError("consume", "--expect", "p.json"));
    assertEquals("Invalid value for option '--idle': must be longer than zero, got '0s'",
        loadUsageError("consume", "--idle", "0s"));
    assertEquals("--max, --follow and --shard are options of the console consumer (consume STREAM)",
        loadUsageError("consume", "--follow"));
    assertEquals(1, o.members());
    assertEquals(null, o.churn());
    ConsumeOptions group = parsed(ConsumeCommand.class, Map.of(), "consume", "--bootstrap", "h:1", "--stream", "s",
        "--group", "g", "--members", "3", "--churn", "2s").loadOptions();
    assertEquals("g", group.group());
    assertEquals(3, group.members());
    assertEquals(Duration.ofSeconds(2), group.churn());
    assertEquals("--members and --churn are options of a group reader: give --group too",
        loadUsageError("consume", "--members", "2"));
    assertEquals("--members: expected a number from 1 to 64, got 0",
        loadUsageError("consume", "--group", "g", "--members", "0"));
  }

  @Test
  void helpAndVersionExitWithZeroAndUnknownCommandsWithTwo() {
    Outcome help = run(Map.of(), "--help");
    assertEquals(0, help.code());
    for (String command : List.of("stream", "broker", "move", "placement", "status", "produce", "consume", "bench",
        "chaos", "generate-completion")) {
      assertTrue(help.out().contains("  " + command), command + " listed in: " + help.out());
    }
    Outcome version = run(Map.of(), "--version");
    assertEquals(0, version.code());
    assertTrue(version.out().matches("felix \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(Java .*\\)\\R"), version.out());
    for (String[] args : List.of(new String[] {"stream", "create", "--help"}, new String[] {"chaos", "--help"},
        new String[] {"bench", "placement", "--help"}, new String[] {"consume", "--help"})) {
      Outcome o = run(Map.of(), args);
      assertEquals(0, o.code(), String.join(" ", args) + ": " + o);
      assertTrue(o.out().startsWith("Usage: felix " + args[0]), o.out());
    }
    assertEquals("Unmatched argument at index 0: 'frobnicate'", usageError("frobnicate"));
    assertTrue(usageError("stream").startsWith("Missing required subcommand"));
    assertTrue(usageError("stream", "create").startsWith("Missing required parameter: 'NAME'"));
  }

  @Test
  void completionScriptNamesTheCommands() {
    Outcome o = run(Map.of(), "generate-completion");
    assertEquals(0, o.code(), o.err());
    assertTrue(o.out().contains("function _complete_felix"), o.out().lines().limit(5).toList().toString());
  }
}
