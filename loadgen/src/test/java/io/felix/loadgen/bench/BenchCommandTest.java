package io.felix.loadgen.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import io.felix.loadgen.chaos.FailoverBench;
import org.junit.jupiter.api.Test;

class BenchCommandTest {

  @Test
  void theDesignNotesPreconditionFillsTwoBrokersToTheShareOfSixtyOneShards() {
    // 49 other shards + the 12-shard stream = 61; share = ceil(61 / 3) = 21: brokers 0 and 1 full, 7 on broker 2.
    assertEquals(Map.of(0, 21, 1, 21, 2, 7), PlacementBench.fillTwoToTheirShare(List.of(0, 1, 2), 49));
    assertEquals(49, PlacementBench.OTHER_STREAMS.values().stream().mapToInt(i -> i).sum());
  }

  @Test
  void defaultsRunBothStrategiesClusterShareFirst() {
    PlacementBench.Settings s = BenchCommand.parse(new String[] {"placement", "--broker-jar", "b.jar"});
    assertEquals(List.of("cluster-share", "stream-aware"), s.strategies());
    assertEquals(Duration.ofSeconds(15), s.load());
    assertEquals(3, s.recreates());
    assertEquals(1024, s.recordSize());
    assertEquals(4, s.producers());
    assertEquals(Path.of("b.jar"), s.brokerJar());
    assertEquals(Path.of("data", "bench"), s.dir());
  }

  @Test
  void optionsAreReadAndBadValuesNameTheOption() {
    PlacementBench.Settings s = BenchCommand.parse(new String[] {"placement", "--strategy", "stream-aware",
        "--duration", "5s", "--recreates", "0", "--dir", "/tmp/x"});
    assertEquals(List.of("stream-aware"), s.strategies());
    assertEquals(Duration.ofSeconds(5), s.load());
    assertEquals(0, s.recreates());

    assertEquals("--duration must be a whole number of seconds like 15s, got 5m", assertThrows(
        IllegalArgumentException.class, () -> BenchCommand.parse(new String[] {"placement", "--duration", "5m"}))
        .getMessage());
    assertEquals("--recreates must be a number >= 0, got -1", assertThrows(IllegalArgumentException.class,
        () -> BenchCommand.parse(new String[] {"placement", "--recreates", "-1"})).getMessage());
    assertEquals("unknown option --brokers", assertThrows(IllegalArgumentException.class,
        () -> BenchCommand.parse(new String[] {"placement", "--brokers", "4"})).getMessage());
    assertEquals("--producers needs a value", assertThrows(IllegalArgumentException.class,
        () -> BenchCommand.parse(new String[] {"placement", "--producers"})).getMessage());
  }

  @Test
  void failoverDefaultsToTenKillsOfALeaderWithABoundOfTwiceTheGoal() {
    FailoverBench.Settings s = BenchCommand.parseFailover(new String[] {"failover"});
    assertEquals(FailoverBench.Victim.LEADER, s.victim());
    assertEquals(10, s.kills());
    assertEquals(6, s.shards());
    assertEquals(Duration.ofSeconds(6), s.bound());
    assertEquals(Path.of("data", "bench-failover"), s.dir());

    FailoverBench.Settings singleton = BenchCommand.parseFailover(
        new String[] {"failover", "--victim", "singleton-host", "--kills", "3", "--rate", "200"});
    assertEquals(FailoverBench.Victim.SINGLETON_HOST, singleton.victim());
    assertEquals(3, singleton.kills());
    assertEquals(200, singleton.rate());
    assertEquals(Duration.ofSeconds(10), singleton.bound());

    assertEquals("--victim must be leader or singleton-host, got oldest", assertThrows(IllegalArgumentException.class,
        () -> BenchCommand.parseFailover(new String[] {"failover", "--victim", "oldest"})).getMessage());
    assertEquals("--kills, --shards and --rate must be at least 1", assertThrows(IllegalArgumentException.class,
        () -> BenchCommand.parseFailover(new String[] {"failover", "--kills", "0"})).getMessage());
  }
}
