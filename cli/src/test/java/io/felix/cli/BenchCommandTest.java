package io.felix.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.loadgen.bench.PlacementBench;
import io.felix.loadgen.chaos.FailoverBench;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code felix bench placement|failover}: the settings their options make, and usage errors naming the option. */
class BenchCommandTest {

  /** The settings {@code bench placement ARGS} would run with. */
  private static PlacementBench.Settings parse(String... args) {
    BenchCommand bench = new BenchCommand();
    CommandLine cli = new CommandLine(bench);
    CommandLine.ParseResult result = cli.parseArgs(args);
    CommandLine.ParseResult placement = result.subcommand();
    return bench.settings(placement.matchedOptionValue("--strategy", BenchCommand.StrategyChoice.BOTH),
        placement.matchedOptionValue("--duration", Duration.ofSeconds(15)),
        placement.matchedOptionValue("--recreates", 3), placement.matchedOptionValue("--record-size", 1024),
        placement.matchedOptionValue("--producers", 4), placement.matchedOptionValue("--broker-jar", null),
        placement.matchedOptionValue("--dir", Path.of("data", "bench")),
        placement.matchedOptionValue("--rounds", 3), placement.matchedOptionValue("--cpu-per-broker", null));
  }

  private static String usageError(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Felix.run(args, InputStream.nullInputStream(), new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    assertEquals(2, code);
    return err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
  }

  @Test
  void defaultsRunBothStrategiesClusterShareFirst() {
    PlacementBench.Settings s = parse("placement", "--broker-jar", "b.jar");
    assertEquals(List.of("cluster-share", "stream-aware"), s.strategies());
    assertEquals(Duration.ofSeconds(15), s.load());
    assertEquals(3, s.recreates());
    assertEquals(1024, s.recordSize());
    assertEquals(4, s.producers());
    assertEquals(Path.of("b.jar"), s.brokerJar());
    assertEquals(Path.of("data", "bench"), s.dir());
    assertEquals(3, s.rounds());
    assertEquals(java.util.OptionalDouble.empty(), s.cpuPerBroker());
  }

  @Test
  void roundsAndACpuBudgetPerBrokerAreReadAndBadOnesNameTheOption() {
    PlacementBench.Settings s = parse("placement", "--rounds", "5", "--cpu-per-broker", "0.5");
    assertEquals(5, s.rounds());
    assertEquals(java.util.OptionalDouble.of(0.5), s.cpuPerBroker());
    assertEquals("--rounds: expected a number from 1 to 100, got 0", usageError("bench", "placement", "--rounds", "0"));
    assertEquals("--cpu-per-broker: expected a number of cores from 0.01 to 1024, got 0.0",
        usageError("bench", "placement", "--cpu-per-broker", "0"));
  }

  @Test
  void optionsAreReadInBothSpellingsAndBadValuesNameTheOption() {
    PlacementBench.Settings s = parse("placement", "--strategy", "stream-aware", "--duration=5s", "--recreates", "0",
        "--dir", "/tmp/x");
    assertEquals(List.of("stream-aware"), s.strategies());
    assertEquals(Duration.ofSeconds(5), s.load());
    assertEquals(0, s.recreates());
    assertEquals(Duration.ofSeconds(5), parse("placement", "--duration", "5s").load());

    assertEquals("Invalid value for option '--strategy': expected cluster-share, stream-aware or both, got 'fastest'",
        usageError("bench", "placement", "--strategy", "fastest"));
    assertEquals("--duration: expected whole seconds like 15s, got 1500 ms",
        usageError("bench", "placement", "--duration", "1500ms"));
    assertEquals("--recreates: expected a number from 0 to 100, got -1",
        usageError("bench", "placement", "--recreates", "-1"));
    assertEquals("Unknown options: '--brokers', '4'", usageError("bench", "placement", "--brokers", "4"));
    assertTrue(usageError("bench", "placement", "--producers").startsWith("Missing required parameter for option"));
    assertTrue(usageError("bench").startsWith("Missing required subcommand"));
  }

  /** The settings {@code bench failover ARGS} would run with, one per victim kind. */
  private static List<FailoverBench.Settings> parseFailover(String... args) {
    BenchCommand bench = new BenchCommand();
    CommandLine.ParseResult failover = new CommandLine(bench).parseArgs(args).subcommand();
    List<FailoverBench.Victim> victims = failover.matchedOptionValue("--victim",
        List.of(FailoverBench.Victim.LEADER, FailoverBench.Victim.SINGLETON_HOST));
    return victims.stream().map(victim -> bench.failoverSettings(victim, failover.matchedOptionValue("--kills", 10),
        failover.matchedOptionValue("--shards", 6), failover.matchedOptionValue("--rate", 500L),
        failover.matchedOptionValue("--settle", Duration.ofSeconds(3)), failover.matchedOptionValue("--bound", null),
        failover.matchedOptionValue("--dir", Path.of("data", "bench-failover")))).toList();
  }

  @Test
  void failoverDefaultsToTenKillsOfEachVictimKindWithABoundOfTwiceTheGoal() {
    List<FailoverBench.Settings> both = parseFailover("failover");
    assertEquals(List.of(FailoverBench.Victim.LEADER, FailoverBench.Victim.SINGLETON_HOST),
        both.stream().map(FailoverBench.Settings::victim).toList());
    FailoverBench.Settings s = both.get(0);
    assertEquals(10, s.kills());
    assertEquals(6, s.shards());
    assertEquals(Duration.ofSeconds(6), s.bound());
    assertEquals(Path.of("data", "bench-failover", "leader"), s.dir());
    assertEquals(10, both.get(1).kills());
    assertEquals(Duration.ofSeconds(10), both.get(1).bound());
    assertEquals(Path.of("data", "bench-failover", "singleton-host"), both.get(1).dir());

    List<FailoverBench.Settings> one = parseFailover("failover", "--victim", "singleton-host", "--kills", "3",
        "--rate=200");
    assertEquals(1, one.size());
    FailoverBench.Settings singleton = one.get(0);
    assertEquals(FailoverBench.Victim.SINGLETON_HOST, singleton.victim());
    assertEquals(3, singleton.kills());
    assertEquals(200, singleton.rate());
    assertEquals(Duration.ofSeconds(10), singleton.bound());

    assertEquals("Invalid value for option '--victim' (KIND): expected leader or singleton-host, got 'oldest'",
        usageError("bench", "failover", "--victim", "oldest"));
    assertEquals("--kills: expected a number from 1 to 1000, got 0", usageError("bench", "failover", "--kills", "0"));
  }
}
