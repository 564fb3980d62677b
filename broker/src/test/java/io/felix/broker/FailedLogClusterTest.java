package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import io.felix.protocol.client.Acks;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A leader whose log fails to open: its broker restarts with a byte of the shard's durable data flipped (below the
 * recovery point, so corruption, not a torn tail). The shard gets another leader, the replica shows FAILED in
 * GET /v1/streams/{name} and the shard under-replicated; once the byte is restored the replica reopens its log
 * within the reopen interval, follows the new leader and is back in sync. No acknowledged record is lost.
 */
@Tag("cluster")
class FailedLogClusterTest {
  static final String STREAM = "fragile";
  static final int SHARDS = 3;
  static final Duration REOPEN = Duration.ofSeconds(1);

  @Test
  void aReplicaWhoseLogCannotBeOpenedIsFailedOverShownFailedAndReopensOnceRepaired() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of("felix.log.reopen-interval", REOPEN.toMillis() + "ms",
        "felix.control.failover-timeout", "2s"))) {
      cluster.createStreamAndPausePlacement(cluster.broker(0), STREAM, SHARDS);
      try (FelixClient client = cluster.client(Acks.ALL)) {
        RecordLedger before = new RecordLedger(client, STREAM, SHARDS, "before");
        before.startOnEveryShard(300, 300);
        before.stop();
        assertEquals(0, before.failures());

        int victim = leaderOf(cluster, cluster.broker(0), 0);
        Path segment = cluster.dataDir(victim).resolve(STREAM + "-0").resolve("00000000000000000000.log");
        cluster.stop(cluster.broker(victim));
        flipByte(segment, 60); // inside the first batch: its CRC fails
        cluster.add(victim, "");
        cluster.awaitUp(3);
        BrokerNode observer = cluster.broker((victim + 1) % 3);

        BrokerCluster.await(Duration.ofSeconds(30), "shard 0 led elsewhere and broker " + victim + " FAILED", () -> {
          JsonNode shard = shard(cluster, observer, 0);
          return shard.get("leader").asInt() != victim && shard.get("leader").asInt() >= 0
              && "failed".equals(shard.path("replica_states").path(Integer.toString(victim)).asText())
              && shard.path("under_replicated").asBoolean(false);
        });
        JsonNode streams = cluster.get(observer, "/v1/streams").json();
        assertEquals("[0]", streams.get(0).get("under_replicated_shards").toString(), streams.toString());
        // The brokers list counts it against the shard's new leader, and that leader's gauge shows it (once the
        // failed follower's lag passes the in-sync bound).
        int newLeader = leaderOf(cluster, observer, 0);
        for (JsonNode broker : cluster.get(observer, "/v1/brokers").json()) {
          assertEquals(broker.get("id").asInt() == newLeader ? 1 : 0, broker.get("under_replicated_shards").asInt(),
              broker.toString());
        }
        String gauge = "felix_under_replicated_shards{stream=\"" + STREAM + "\"} 1.0";
        BrokerCluster.await(Duration.ofSeconds(30), "broker " + newLeader + "'s " + gauge, () ->
            cluster.get(cluster.broker(newLeader), "/metrics").body().lines().anyMatch(gauge::equals));

        flipByte(segment, 60); // repaired
        long repairedAt = System.nanoTime();
        BrokerCluster.await(Duration.ofSeconds(30), "broker " + victim + " back in sync on shard 0", () -> {
          JsonNode shard = shard(cluster, observer, 0);
          return "follower".equals(shard.path("replica_states").path(Integer.toString(victim)).asText())
              && shard.path("in_sync").toString().contains(Integer.toString(victim))
              && !shard.path("under_replicated").asBoolean(true);
        });
        long rejoinMs = (System.nanoTime() - repairedAt) / 1_000_000;
        System.out.printf("failed log: broker %d's replica of shard 0 reopened and in sync %d ms after the repair%n",
            victim, rejoinMs);
        assertTrue(rejoinMs < REOPEN.toMillis() + 10_000, "in sync again after " + rejoinMs + " ms");
        assertNotEquals(victim, leaderOf(cluster, observer, 0));

        try (FelixClient after = cluster.client(Acks.ALL); FelixClient reader = cluster.client()) {
          RecordLedger later = new RecordLedger(after, STREAM, SHARDS, "after");
          later.startOnEveryShard(300, 300);
          later.stop();
          assertTrue(before.assertAllReadable(reader) >= before.acknowledged());
          assertTrue(later.assertAllReadable(reader) >= later.acknowledged());
        }
      }
    }
  }

  private static int leaderOf(BrokerCluster cluster, BrokerNode via, int shard) {
    return shard(cluster, via, shard).get("leader").asInt();
  }

  private static JsonNode shard(BrokerCluster cluster, BrokerNode via, int shard) {
    BrokerCluster.Reply reply = cluster.get(via, "/v1/streams/" + STREAM);
    assertEquals(200, reply.status(), reply.body());
    for (JsonNode s : reply.json().get("shard_assignments")) {
      if (s.get("shard").asInt() == shard) {
        return s;
      }
    }
    throw new AssertionError("no shard " + shard + " in " + reply.body());
  }

  private static void flipByte(Path file, long position) throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(position);
      int b = f.read();
      f.seek(position);
      f.write(b ^ 0x40);
    }
  }
}
