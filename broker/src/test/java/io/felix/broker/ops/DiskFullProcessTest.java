package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A leader's disk fills up, then has room again. Three broker processes; producers write with {@code quorum} acks;
 * the leader of one shard gets a file-size limit ({@code prlimit --fsize} on its running process: a write past it
 * fails with EFBIG, as a full disk fails with ENOSPC) just above its largest segment, so its appends fail within
 * moments. Its replicas must turn FAILED instead of crashing the broker or serving on, the shard must fail over to
 * another replica, and, once the limit is lifted, the failed replicas must reopen their logs by the reopen interval
 * and rejoin as in-sync followers. Then every acknowledged record is read back exactly once, in order.
 */
@Tag("process")
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DiskFullProcessTest {

  private static final String STREAM = "disk-full";
  private static final int SHARDS = 3;
  /** Room the victim has past its largest segment: a few seconds of this test's load. */
  private static final long ROOM_BYTES = 256 * 1024;

  @TempDir Path dir;

  @Test
  void aLeaderWhoseDiskIsFullFailsOverAndRejoinsAsAFollowerOnceThereIsRoom() throws Exception {
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"), UpOptions.brokers(3), LauncherEnvironment.brokersFromTestClasspath("384m",
            "FELIX_READY_TIMEOUT", "240"))) {
      String bootstrap = launcher.bootstrap();
      new AdminApi(launcher.adminPort(0)).createStream(STREAM, SHARDS, 3);
      Map<Integer, AdminApi.Shard> before = new AdminApi(launcher.adminPort(0))
          .awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));
      // Not broker 0: it hosts the placement singleton and the shared H2 journal, whose writes the limit would fail.
      int victim = before.values().stream().mapToInt(AdminApi.Shard::leader).filter(b -> b != 0).max().orElseThrow();
      AdminApi admin = new AdminApi(launcher.adminPort(0));

      try (ProducerFleet fleet = new ProducerFleet(bootstrap, STREAM, 2)) {
        awaitAcked(fleet, 2_000, Duration.ofSeconds(60));
        long pid = Long.parseLong(Files.readString(launcher.dir().resolve("broker" + victim + "/broker.pid")).trim());
        long limit = largestSegment(launcher.dir().resolve("broker" + victim + "/data")) + ROOM_BYTES;
        prlimit(pid, limit + ":");
        long limitedAt = System.nanoTime();

        Map<Integer, AdminApi.Shard> failedOver = admin.awaitLed(STREAM, SHARDS, victim, Duration.ofSeconds(60));
        long failoverMs = (System.nanoTime() - limitedAt) / 1_000_000;
        for (AdminApi.Shard s : failedOver.values()) {
          if (before.get(s.shard()).leader() == victim) {
            assertTrue(s.epoch() > before.get(s.shard()).epoch(), before.get(s.shard()) + " -> " + s);
          }
        }
        awaitReplicaState(admin, victim, "failed", Duration.ofSeconds(30));
        assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the broker process lives on");
        awaitAcked(fleet, fleet.ackedCount() + 1_000, Duration.ofSeconds(60)); // the stream takes writes

        prlimit(pid, "unlimited:");
        long roomAt = System.nanoTime();
        awaitRejoined(admin, victim, Duration.ofSeconds(60));
        long rejoinMs = (System.nanoTime() - roomAt) / 1_000_000;
        awaitAcked(fleet, fleet.ackedCount() + 1_000, Duration.ofSeconds(60));
        fleet.stop();

        StreamVerifier.Report report =
            StreamVerifier.verify(bootstrap, STREAM, SHARDS, fleet.acked(), Duration.ofSeconds(120));
        System.out.printf("disk-full test: broker %d limited to %d bytes per file; every shard led elsewhere after "
            + "%d ms; with room again, all its replicas in sync after %d ms; %d records acknowledged, %d failed, "
            + "%d read back%n", victim, limit, failoverMs, rejoinMs, fleet.ackedCount(), fleet.failedCount(),
            report.recordsRead());
        assertEquals(List.of(), report.problems());
        assertTrue(report.recordsRead() >= fleet.ackedCount(), "read back at least every acknowledged record");
      }
    }
  }

  private static long largestSegment(Path dataDir) throws IOException {
    try (Stream<Path> files = Files.walk(dataDir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException e) {
          return 0;
        }
      }).max().orElse(0);
    }
  }

  /** Sets the soft file-size limit ({@code soft:}) of a running process. */
  private static void prlimit(long pid, String fsize) throws Exception {
    Process p = new ProcessBuilder("prlimit", "--pid", Long.toString(pid), "--fsize=" + fsize)
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertEquals(0, p.waitFor(), "prlimit --fsize=" + fsize + " failed: " + out);
  }

  /** Waits until some shard shows {@code broker}'s replica in {@code state} (GET /v1/streams/{name}). */
  private static void awaitReplicaState(AdminApi admin, int broker, String state, Duration timeout) {
    BrokerCluster.await(timeout, "a replica on broker " + broker + " showing " + state, () -> {
      JsonNode detail = streamDetail(admin);
      if (detail == null) {
        return false;
      }
      for (JsonNode shard : detail.get("shard_assignments")) {
        if (state.equals(shard.path("replica_states").path(Integer.toString(broker)).asText())) {
          return true;
        }
      }
      return false;
    });
  }

  /** Waits until every shard has {@code broker} in its leader's in-sync set and is not under-replicated. */
  private static void awaitRejoined(AdminApi admin, int broker, Duration timeout) {
    BrokerCluster.await(timeout, "every replica on broker " + broker + " back in sync", () -> {
      JsonNode detail = streamDetail(admin);
      if (detail == null) {
        return false;
      }
      for (JsonNode shard : detail.get("shard_assignments")) {
        boolean inSync = false;
        for (JsonNode b : shard.path("in_sync")) {
          inSync |= b.asInt() == broker;
        }
        if (!inSync || shard.path("under_replicated").asBoolean(true)) {
          return false;
        }
      }
      return true;
    });
  }

  private static JsonNode streamDetail(AdminApi admin) {
    try {
      return admin.streamDetail(STREAM);
    } catch (Exception e) {
      return null;
    }
  }

  private static void awaitAcked(ProducerFleet fleet, long count, Duration timeout) {
    BrokerCluster.await(timeout, count + " records acknowledged (" + fleet.ackedCount() + " so far, "
        + fleet.failedCount() + " failed)", () -> fleet.ackedCount() >= count);
  }
}
