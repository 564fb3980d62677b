package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes started with {@code bin/felix local up}; producers write with {@code quorum} acks;
 * {@code bin/felix local kill} SIGKILLs the broker leading the most shards; its shards fail over; it is started
 * again with {@code bin/felix local start} and rejoins; then the whole stream is read back and every
 * acknowledged record must be there exactly once, at its acknowledged offset, in order per producer.
 */
class BrokerKillTest {

  private static final String STREAM = "kill-test";
  private static final int SHARDS = 6;

  @TempDir Path dir;

  @Test
  void sigkilledLeaderFailsOverAndRejoinsWithoutLosingOrDuplicatingAcknowledgedRecords() throws Exception {
    assumeTrue(BrokerProcess.brokerMainPresent(), "TEMPORARY: io.felix.broker.BrokerMain is not on main yet");
    try (Launcher launcher = Launcher.create(dir.resolve("local"), 3)) {
      launcher.run("local", "up", "--brokers", "3", "--zones", "a,b,c");
      String bootstrap = "127.0.0.1:" + launcher.clientPort(0) + ",127.0.0.1:" + launcher.clientPort(1)
          + ",127.0.0.1:" + launcher.clientPort(2);
      new AdminApi(launcher.adminPort(0)).createStream(STREAM, SHARDS, 3);
      Map<Integer, AdminApi.Shard> before = new AdminApi(launcher.adminPort(0))
          .awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));

      try (ProducerFleet fleet = new ProducerFleet(bootstrap, STREAM, 3)) {
        awaitAcked(fleet, 3_000, Duration.ofSeconds(60));

        int victim = mostLeaders(before);
        AdminApi survivor = new AdminApi(launcher.adminPort((victim + 1) % 3));
        launcher.run("local", "kill", Integer.toString(victim));
        long killedAt = System.nanoTime();
        Map<Integer, AdminApi.Shard> after = survivor.awaitLed(STREAM, SHARDS, victim, Duration.ofSeconds(60));
        long failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
        for (AdminApi.Shard s : after.values()) {
          if (before.get(s.shard()).leader() == victim) {
            assertTrue(s.epoch() > before.get(s.shard()).epoch(),
                "a promoted leader has a higher epoch: " + before.get(s.shard()) + " -> " + s);
          }
        }
        long ackedAtFailover = fleet.ackedCount();
        awaitAcked(fleet, ackedAtFailover + 2_000, Duration.ofSeconds(60));

        launcher.run("local", "start", Integer.toString(victim));
        awaitAcked(fleet, fleet.ackedCount() + 2_000, Duration.ofSeconds(60));
        fleet.stop();

        StreamVerifier.Report report = StreamVerifier.verify(bootstrap, STREAM, SHARDS, fleet.acked());
        System.out.printf("kill test: broker %d (leading %d of %d shards) SIGKILLed; all shards led again after %d ms;"
            + " %d records acknowledged, %d failed, %d read back%n", victim,
            before.values().stream().filter(s -> s.leader() == victim).count(), SHARDS, failoverMs,
            fleet.ackedCount(), fleet.failedCount(), report.recordsRead());
        assertEquals(List.of(), report.problems());
        assertTrue(report.recordsRead() >= fleet.ackedCount(), "read back at least every acknowledged record");
      }
    }
  }

  private static int mostLeaders(Map<Integer, AdminApi.Shard> shards) {
    Map<Integer, Long> counts = shards.values().stream()
        .collect(Collectors.groupingBy(AdminApi.Shard::leader, Collectors.counting()));
    return counts.entrySet().stream().max(Map.Entry.<Integer, Long>comparingByValue()
        .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).orElseThrow().getKey();
  }

  private static void awaitAcked(ProducerFleet fleet, long count, Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (fleet.ackedCount() < count) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("only " + fleet.ackedCount() + " of " + count + " records acknowledged within "
            + timeout + " (" + fleet.failedCount() + " failed)");
      }
      Thread.sleep(50);
    }
  }
}
