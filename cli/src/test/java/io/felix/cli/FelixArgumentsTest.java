package io.felix.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeOptions;
import io.felix.loadgen.ProduceOptions;
import io.felix.launcher.BrokerConfig;
import io.felix.launcher.LocalLayout;
import io.felix.launcher.PlacementStrategy;
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
    return usageError(Map.of(), args);
  }

  private static String usageError(Map<String, String> env, String... args) {
    Outcome o = run(env, args);
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

  /** The command object {@code args} would run (the deepest subcommand), parsed in {@code env}. */
  static <T> T parsed(Class<T> type, Map<String, String> env, String... args) {
    CommandLine cli = Felix.commandLine(new Felix(InputStream.nullInputStream(), System.out, System.err, env));
    CommandLine.ParseResult result = cli.parseArgs(Felix.earlierSpellings(args));
    while (result.hasSubcommand()) {
      result = result.subcommand();
    }
    return type.cast(result.commandSpec().userObject());
  }

  private static ProduceOptions produce(String... args) {
    List<String> all = new ArrayList<>(List.of("perf", "produce"));
    all.addAll(List.of(args));
    return parsed(PerfProduceCommand.class, Map.of(), all.toArray(String[]::new)).options();
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
    assertEquals(Duration.ZERO, produce("--stream", "s").warmup());
    assertEquals(Duration.ofSeconds(20), produce("--stream", "s", "--warmup", "20s").warmup());
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
    assertEquals(List.of(new AdminAddress(AdminAddress.Scheme.UNSPECIFIED, "p", 4)),
        parsed(ProduceCommand.class, env, "produce", "s").endpoints.admin());
    // No cluster in FELIX_LOCAL_DIR: broker 0 of one, on FELIX_PORT_OFFSET's ports.
    Map<String, String> none = Map.of("FELIX_LOCAL_DIR", dir.resolve("empty").toString());
    assertEquals(List.of(new AdminAddress(AdminAddress.Scheme.UNSPECIFIED, "127.0.0.1", 18080)),
        parsed(ProduceCommand.class, none, "produce", "s").endpoints.admin());
    Map<String, String> shifted = Map.of("FELIX_LOCAL_DIR", dir.resolve("empty").toString(),
        "FELIX_PORT_OFFSET", "2000");
    assertEquals(List.of(new HostPort("127.0.0.1", 21090)),
        parsed(ProduceCommand.class, shifted, "produce", "s").endpoints.bootstrap());
  }

  @Test
  void withoutAddressesEveryBrokerOfTheLocalClusterIsUsedAndItsCaUnderTls(@TempDir Path dir) throws Exception {
    LocalLayout layout = new LocalLayout(dir.resolve("local"), 5000);
    for (int broker = 0; broker < 2; broker++) {
      Files.createDirectories(layout.brokerDir(broker));
      Files.writeString(layout.configFile(broker), new BrokerConfig(broker, "a", 2, PlacementStrategy.STREAM_AWARE,
          true).render(layout));
    }
    Map<String, String> env = Map.of("FELIX_LOCAL_DIR", layout.dir().toString(), "FELIX_PORT_OFFSET", "5000");
    Endpoints endpoints = parsed(ProduceCommand.class, env, "produce", "s").endpoints;
    assertEquals(List.of(new AdminAddress(AdminAddress.Scheme.HTTPS, "127.0.0.1", 23080),
        new AdminAddress(AdminAddress.Scheme.HTTPS, "127.0.0.1", 23081)), endpoints.admin());
    assertEquals(List.of(new HostPort("127.0.0.1", 24090), new HostPort("127.0.0.1", 24091)), endpoints.bootstrap());
    // The CA file does not exist in this test: naming it proves it was taken from the local cluster.
    String noCa = usageError(env, "produce", "s");
    assertTrue(noCa.startsWith("--tls-ca: ") && noCa.contains(layout.caFile().toString()), noCa);
  }

  @Test
  void anAdminAddressMayNameItsScheme() {
    assertEquals(List.of(new AdminAddress(AdminAddress.Scheme.HTTPS, "h", 8443),
            new AdminAddress(AdminAddress.Scheme.HTTP, "g", 80), new AdminAddress(AdminAddress.Scheme.UNSPECIFIED, "k", 1)),
        AdminAddress.parseList("https://h:8443/, HTTP://g:80,k:1"));
    assertTrue(new AdminAddress(AdminAddress.Scheme.UNSPECIFIED, "k", 1).https(true));
    assertFalse(new AdminAddress(AdminAddress.Scheme.UNSPECIFIED, "k", 1).https(false));
    assertFalse(new AdminAddress(AdminAddress.Scheme.HTTP, "k", 1).https(true));
    assertTrue(new AdminAddress(AdminAddress.Scheme.HTTPS, "k", 1).https(false));
    assertEquals("--admin: the admin API is http:// or https://, got 'ftp://h:1'",
        usageError("stream", "list", "--admin", "ftp://h:1"));
    assertEquals("--admin: give the admin API's address without a path, got 'http://h:1/v1'",
        usageError("stream", "list", "--admin", "http://h:1/v1"));
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
    assertEquals("--warmup needs --duration, not --records",
        loadUsageError("produce", "--warmup", "5s", "--records", "5"));
    assertEquals("Unknown options: '--speed', '3'", usageError("produce", "s", "--speed", "3"));
    assertTrue(usageError("perf", "produce", "--producers")
        .startsWith("Missing required parameter for option '--producers'"));
    assertEquals("Missing required parameter: 'STREAM'", usageError("produce"));
    assertEquals("Unmatched argument at index 2: 'a'", usageError("produce", "a", "--stream", "b"));
    assertEquals("Missing required option: '--stream=NAME'", usageError("perf", "produce", "--rate", "5"));
  }

  @Test
  void theLoadGeneratorsEarlierSpellingsRunPerf() {
    assertEquals(List.of("perf", "produce", "--stream", "s"),
        List.of(Felix.earlierSpellings(new String[] {"produce", "--stream", "s"})));
    assertEquals(List.of("perf", "consume", "--stream=s", "--verify"),
        List.of(Felix.earlierSpellings(new String[] {"consume", "--stream=s", "--verify"})));
    assertEquals(List.of("perf", "cache", "--cache", "c"),
        List.of(Felix.earlierSpellings(new String[] {"cache", "--cache", "c"})));
    assertEquals(List.of("produce", "orders", "--key", "k"),
        List.of(Felix.earlierSpellings(new String[] {"produce", "orders", "--key", "k"})));
    assertEquals(List.of("consume", "orders"), List.of(Felix.earlierSpellings(new String[] {"consume", "orders"})));
    // The hook's exact command lines parse as perf produce and perf consume.
    ProduceOptions p = parsed(PerfProduceCommand.class, Map.of(), "produce", "--bootstrap", "127.0.0.1:19090",
        "--stream", "smoke", "--records", "20000", "--record-size", "200", "--acks", "quorum", "--json", "p.json")
        .options();
    assertEquals(20000, p.records());
    assertEquals(200, p.recordSize());
    ConsumeOptions c = parsed(PerfConsumeCommand.class, Map.of(), "consume", "--bootstrap", "127.0.0.1:19090",
        "--stream", "smoke", "--from-beginning", "--idle", "3s", "--verify", "--expect", "p.json").options();
    assertTrue(c.verify());
    assertEquals(Path.of("p.json"), c.expect());
    assertEquals(Duration.ofSeconds(3), c.idle());
  }

  @Test
  void theConsoleProducerReadsAKeyFromEachLineWithASeparator() throws Exception {
    ProduceCommand keyed = parsed(ProduceCommand.class, Map.of(), "produce", "s", "--key-separator", ":");
    ProduceCommand.Line line = keyed.parse("user-1:{\"a\":1}:x", 1);
    assertEquals("user-1", new String(line.key(), StandardCharsets.UTF_8));
    assertEquals("{\"a\":1}:x", new String(line.value(), StandardCharsets.UTF_8));
    assertEquals("", new String(keyed.parse(":v", 2).key(), StandardCharsets.UTF_8));
    CommandFailure noSeparator = org.junit.jupiter.api.Assertions.assertThrows(CommandFailure.class,
        () -> keyed.parse("no key here", 7));
    assertEquals("line 7 has no key separator ':': no key here", noSeparator.getMessage());
    ProduceCommand fixed = parsed(ProduceCommand.class, Map.of(), "produce", "s", "--key", "k");
    assertEquals("k", new String(fixed.parse("a:b", 1).key(), StandardCharsets.UTF_8));
    assertEquals("a:b", new String(fixed.parse("a:b", 1).value(), StandardCharsets.UTF_8));
    assertNull(parsed(ProduceCommand.class, Map.of(), "produce", "s").parse("v", 1).key());
    assertEquals("--key and --key-separator exclude each other: a record's key is either fixed or read from its line",
        usageError("produce", "s", "--key", "k", "--key-separator", ":", "--bootstrap", "h:1"));
  }

  @Test
  void theConsoleConsumerStartsWhereOffsetSaysAndAGroupReadsItsAssignment() {
    assertEquals(new ConsumeCommand.Start(ConsumeCommand.Start.Kind.LATEST, 0),
        parsed(ConsumeCommand.class, Map.of(), "consume", "s").start());
    assertEquals(new ConsumeCommand.Start(ConsumeCommand.Start.Kind.EARLIEST, 0),
        parsed(ConsumeCommand.class, Map.of(), "consume", "s", "--from-beginning").start());
    assertEquals(new ConsumeCommand.Start(ConsumeCommand.Start.Kind.EARLIEST, 0),
        parsed(ConsumeCommand.class, Map.of(), "consume", "s", "--offset", "earliest").start());
    assertEquals(new ConsumeCommand.Start(ConsumeCommand.Start.Kind.OFFSET, 1500),
        parsed(ConsumeCommand.class, Map.of(), "consume", "s", "--shard", "2", "--offset", "1_500").start());
    assertEquals("g", parsed(ConsumeCommand.class, Map.of(), "consume", "s", "--group", "g").group);
    assertEquals("Invalid value for option '--offset': expected earliest, latest or an offset of at least 0, got '-3'",
        usageError("consume", "s", "--offset", "-3"));
    assertEquals("--offset N needs --shard: an offset belongs to one shard", usageError("consume", "s", "--offset",
        "5", "--bootstrap", "h:1"));
    assertEquals("--offset and --from-beginning exclude each other (--from-beginning is --offset earliest)",
        usageError("consume", "s", "--offset", "latest", "--from-beginning", "--bootstrap", "h:1"));
    assertEquals("--shard and --offset N are for a reader outside a group: a group member reads the shards it is "
        + "assigned, from the group's committed offsets",
        usageError("consume", "s", "--group", "g", "--shard", "1", "--bootstrap", "h:1"));
  }

  @Test
  void streamAlterNeedsASettingAndNamesBadValues() {
    assertEquals("nothing to change: give --retention-ms, --retention-bytes, --segment-bytes or --shards",
        usageError("stream", "alter", "orders", "--admin", "h:1"));
    assertEquals("Invalid value for option '--retention-ms': expected a whole number, got '1h'",
        usageError("stream", "alter", "orders", "--retention-ms", "1h"));
    assertTrue(usageError("stream", "alter").startsWith("Missing required parameter: 'NAME'"));
  }

  @Test
  void localUpRefusesBadOptionsBeforeStartingAnything(@TempDir Path dir) {
    Map<String, String> env = Map.of("FELIX_LOCAL_DIR", dir.resolve("local").toString());
    assertEquals("--brokers: expected a number from 1 to 100, got 0", usageError(env, "local", "up", "--brokers",
        "0"));
    assertEquals("expected stream-aware or cluster-share, got 'random'", usageError(env, "local", "up",
        "--strategy", "random"));
    assertEquals("--cpu-per-broker must be a number of cores of at least 0.01, like 0.5 or 2, got 0.0",
        usageError(env, "local", "up", "--cpu-per-broker", "0"));
    assertFalse(Files.exists(dir.resolve("local")), "nothing written");
    Outcome bad = run(Map.of("FELIX_LOCAL_DIR", dir.resolve("local").toString(), "FELIX_PORT_OFFSET", "fifty"),
        "local", "status");
    assertEquals(1, bad.code());
    assertEquals("felix local status: FELIX_PORT_OFFSET must be a whole number, got 'fifty'", bad.firstErrorLine());
    Outcome none = run(env, "local", "status");
    assertEquals(0, none.code(), none.toString());
    assertEquals("no local cluster in " + dir.resolve("local") + "\n", none.out());
  }

  @Test
  void loadConsumeOptions() {
    ConsumeOptions o = parsed(PerfConsumeCommand.class, Map.of(), "consume", "--bootstrap", "h:1", "--stream", "s",
        "--from-beginning", "--verify", "--expect", "p.json").options();
    assertTrue(o.fromBeginning());
    assertTrue(o.verify());
    assertEquals(Path.of("p.json"), o.expect());
    assertEquals(Duration.ofSeconds(5), o.idle());
    assertEquals("--expect is only meaningful with --verify", loadUsageError("consume", "--expect", "p.json"));
    assertEquals("Invalid value for option '--idle': must be longer than zero, got '0s'",
        loadUsageError("consume", "--idle", "0s"));
    assertEquals("Unknown option: '--follow'", loadUsageError("consume", "--follow"));
    assertEquals(1, o.members());
    assertEquals(null, o.churn());
    ConsumeOptions group = parsed(PerfConsumeCommand.class, Map.of(), "consume", "--bootstrap", "h:1", "--stream",
        "s", "--group", "g", "--members", "3", "--churn", "2s").options();
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
    for (String command : List.of("local", "demo", "stream", "broker", "move", "placement", "status", "produce",
        "consume", "perf", "bench", "chaos", "generate-completion")) {
      assertTrue(help.out().contains("  " + command), command + " listed in: " + help.out());
    }
    Outcome version = run(Map.of(), "--version");
    assertEquals(0, version.code());
    assertTrue(version.out().matches("felix \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(Java .*\\)\\R"), version.out());
    for (String[] args : List.of(new String[] {"stream", "create", "--help"}, new String[] {"chaos", "--help"},
        new String[] {"bench", "placement", "--help"}, new String[] {"consume", "--help"},
        new String[] {"local", "up", "--help"}, new String[] {"perf", "produce", "--help"})) {
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
