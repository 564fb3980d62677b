package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import io.felix.launcher.LocalCluster;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Three broker processes started with {@code bin/felix local up} (the {@link SharedLocalCluster}), a stream of its
 * own; producers write with {@code quorum} acks;
 * {@code bin/felix local kill} SIGKILLs the broker leading the most shards; its shards fail over; it is started
 * again with {@code bin/felix local start} and rejoins; then the whole stream is read back and every
 * acknowledged record must be there exactly once, at its acknowledged offset, in order per producer.
 */
@Tag("process")
@ExtendWith(SharedLocalCluster.class)
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class BrokerKillTest {

  private static final String STREAM = "kill-test";
  private static final int SHARDS = 6;

  @Test
  void sigkilledLeaderFailsOverAndRejoinsWithoutLosingOrDuplicatingAcknowledgedRecords(LocalCluster launcher)
      throws Exception {
    String bootstrap = launcher.bootstrap();
    new AdminApi(launcher.adminPort(0)).createStream(STREAM, SHARDS, 3);
    Map<Integer, AdminApi.Shard> before = new AdminApi(launcher.adminPort(0))
        .awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));

    try (ProducerFleet fleet = new ProducerFleet(bootstrap, STREAM, 3)) {
      awaitAcked(fleet, 3_000, Duration.ofSeconds(60));
      // The brokers' /metrics summed: each reports the leaders it holds, so together they cover the stream's
      // shards once; appends (made before any ack) cover at least the records acknowledged so far.
      long ackedSoFar = fleet.ackedCount();
      double appended = 0;
      double leaders = 0;
      for (int b = 0; b < 3; b++) {
        AdminApi api = new AdminApi(launcher.adminPort(b));
        leaders += api.metricSum("felix_leaders", "stream=\"" + STREAM + "\"");
        appended += api.metricSum("felix_records_appended_total", "stream=\"" + STREAM + "\"");
      }
      assertEquals(SHARDS, leaders, 0.0, "felix_leaders summed over the brokers");
      assertTrue(appended >= ackedSoFar, appended + " appended < " + ackedSoFar + " acknowledged");

      int victim = mostLeaders(before);
      AdminApi survivor = new AdminApi(launcher.adminPort((victim + 1) % 3));
      launcher.killAndKeepDown(victim); // restarted at once, it would take leaders back before a poll saw the failover
      long failoverMs;
      try {
        long killedAt = System.nanoTime();
        Map<Integer, AdminApi.Shard> after = survivor.awaitLed(STREAM, SHARDS, victim, Duration.ofSeconds(60));
        failoverMs = (System.nanoTime() - killedAt) / 1_000_000;
        for (AdminApi.Shard s : after.values()) {
          if (before.get(s.shard()).leader() == victim) {
            assertTrue(s.epoch() > before.get(s.shard()).epoch(),
                "a promoted leader has a higher epoch: " + before.get(s.shard()) + " -> " + s);
          }
        }
        awaitAcked(fleet, fleet.ackedCount() + 2_000, Duration.ofSeconds(60));
      } finally {
        launcher.start(victim); // the shared cluster whole again, whatever happened
      }
      // Rebalancing hands the restarted broker leaders again; a move cuts over only once the destination holds
      // the source's whole log, so leading again means it caught up (and the read below goes through it).
      Map<Integer, AdminApi.Shard> rejoined = awaitLeading(survivor, victim, Duration.ofSeconds(120));
      awaitAcked(fleet, fleet.ackedCount() + 2_000, Duration.ofSeconds(60));
      fleet.stop();

      StreamVerifier.Report report =
          StreamVerifier.verify(bootstrap, STREAM, SHARDS, fleet.acked(), Duration.ofSeconds(120));
      System.out.printf("kill test: broker %d (leading %d of %d shards) SIGKILLed; all shards led again after %d ms;"
          + " restarted, it leads %d again; %d records acknowledged, %d failed, %d read back%n", victim,
          before.values().stream().filter(s -> s.leader() == victim).count(), SHARDS, failoverMs,
          rejoined.values().stream().filter(s -> s.leader() == victim).count(), fleet.ackedCount(),
          fleet.failedCount(), report.recordsRead());
      assertEquals(List.of(), report.problems());
      assertTrue(report.recordsRead() >= fleet.ackedCount(), "read back at least every acknowledged record");
    }
  }

  private static int mostLeaders(Map<Integer, AdminApi.Shard> shards) {
    Map<Integer, Long> counts = shards.values().stream()
        .collect(Collectors.groupingBy(AdminApi.Shard::leader, Collectors.counting()));
    return counts.entrySet().stream().max(Map.Entry.<Integer, Long>comparingByValue()
        .thenComparing(Map.Entry.comparingByKey(Comparator.reverseOrder()))).orElseThrow().getKey();
  }

  /** Waits until {@code broker} leads at least one shard of the stream again; returns that layout. */
  private static Map<Integer, AdminApi.Shard> awaitLeading(AdminApi admin, int broker, Duration timeout) {
    AtomicReference<Map<Integer, AdminApi.Shard>> last = new AtomicReference<>(Map.of());
    BrokerCluster.await(timeout, "restarted broker " + broker + " leading a shard of " + STREAM, () -> {
      try {
        last.set(admin.shards(STREAM));
      } catch (Exception e) {
        throw new AssertionError("admin API of a surviving broker failed: " + e, e);
      }
      return last.get().values().stream().anyMatch(s -> s.leader() == broker);
    });
    return last.get();
  }

  private static void awaitAcked(ProducerFleet fleet, long count, Duration timeout) {
    BrokerCluster.await(timeout, count + " records acknowledged (" + fleet.ackedCount() + " so far, "
        + fleet.failedCount() + " failed)", () -> fleet.ackedCount() >= count);
  }
}
