package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeRun;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.Summary;
import io.felix.loadgen.Verifier;
import io.felix.launcher.LocalCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A leader that stops answering: under a ledgered steady load (the load generator's idempotent producers, default
 * client settings, so a request waits up to 30 s for its answer) the broker leading the most shards, not the
 * singleton's host, is SIGSTOPped for 12 s, then continued. Its connections stay open and it answers nothing, so the
 * producers learn of the new leaders only from metadata (their requests overdue past leaderSilenceTimeout) and move
 * their batches in flight there with the same producer id and sequences. Then the stream is read back against the
 * producers' ledger ({@code consume --verify --expect}'s Verifier): no record may fail, uncertain or not, none may be
 * missing, duplicated or out of order, and the latency's p99 must stay well under the pause (it was 13.7 s, with 173
 * uncertain records, when requests waited out their timeout).
 */
@Tag("process")
@ExtendWith(SharedLocalCluster.class)
@Timeout(value = 6, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class SilentLeaderProcessTest {
  private static final String STREAM = "silent";
  private static final int SHARDS = 6;
  private static final Duration PAUSE = Duration.ofSeconds(12);
  private static final Duration STEADY = Duration.ofSeconds(3);
  /** The failover bound (3 s from the loss to a new leader) plus the silence timeout and a metadata read. */
  private static final double P99_BOUND_MS = 6_000;

  @Test
  void producersMoveTheirBatchesToTheNewLeaderWithoutUncertainOrLostRecords(LocalCluster launcher) throws Exception {
    // The singleton's host answers the admin API throughout; the victim is the other broker leading the most.
    int singleton = SharedLocalCluster.singletonHost(launcher);
    AdminApi first = new AdminApi(launcher.adminPort(singleton));
    first.createStream(STREAM, SHARDS, 3);
    first.awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));
    List<HostPort> bootstrap = HostPort.parseList(launcher.bootstrap());

    ProduceRun load = ProduceRun.steady(bootstrap, STREAM, 400, 2);
    FutureTask<Summary> producing = new FutureTask<>(load::produce);
    new Thread(producing, "silent-leader-load").start();
    int victim;
    long settledMs;
    try {
      Thread.sleep(STEADY.toMillis());
      Map<Integer, AdminApi.Shard> before = first.shards(STREAM);
      victim = before.values().stream().filter(s -> s.leader() != singleton)
          .collect(java.util.stream.Collectors.groupingBy(AdminApi.Shard::leader,
              java.util.stream.Collectors.counting()))
          .entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
      launcher.signal(victim, "STOP");
      long stoppedAt = System.nanoTime();
      try {
        first.awaitLed(STREAM, SHARDS, victim, PAUSE);
        settledMs = (System.nanoTime() - stoppedAt) / 1_000_000;
        Thread.sleep(Math.max(0, (stoppedAt + PAUSE.toNanos() - System.nanoTime()) / 1_000_000));
      } finally {
        launcher.signal(victim, "CONT");
      }
      // Paused past the split brain resolver's decision, the victim is downed and restarted by its supervisor;
      // it leads nothing now, so the producers go on without it.
      Thread.sleep(STEADY.toMillis());
    } finally {
      load.stop();
    }
    Summary summary = producing.get();
    Verifier.Report report = ConsumeRun.verifyAgainst(bootstrap, STREAM, summary);
    long missing = report.producers().stream().mapToLong(Verifier.ProducerReport::missing).sum();
    long duplicated = report.producers().stream().mapToLong(Verifier.ProducerReport::duplicated).sum();
    long disordered = report.producers().stream().mapToLong(p -> p.outOfOrder() + p.unexpected()).sum();
    double p99 = summary.latencyMs().get("p99");
    System.out.printf("silent leader: broker %d SIGSTOPped for %d s; every shard led elsewhere after %d ms; %d sent,"
            + " %d acknowledged, %d uncertain, %d not appended, %d retries; read back %d: %d missing, %d duplicated,"
            + " %d disordered; latency ms %s%n", victim, PAUSE.toSeconds(), settledMs, summary.sent(),
        summary.acked(), summary.failedUncertain(), summary.failedNotAppended(), summary.retries(),
        report.records(), missing, duplicated, disordered, summary.latencyMs());

    assertEquals(0, summary.failedUncertain(), "records with an unknown outcome");
    assertEquals(0, summary.failedNotAppended(), "records that failed");
    assertEquals(summary.sent(), summary.acked());
    assertEquals(0, missing, "acknowledged records missing");
    assertEquals(0, duplicated, "records read back twice");
    assertEquals(0, disordered, "records out of order, unexpected or corrupt");
    assertEquals(0, report.corrupt());
    assertTrue(p99 < P99_BOUND_MS, "p99 " + p99 + " ms, bound " + P99_BOUND_MS + " ms: " + summary.latencyMs());
  }
}
