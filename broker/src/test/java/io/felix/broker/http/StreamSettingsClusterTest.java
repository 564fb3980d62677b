package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import io.felix.client.RecordMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream's retention settings through the admin API of a full cluster (singleton, journal, table pushes): created
 * with 1 KiB segments and no size limit, it keeps everything; PATCH sets a size limit, persisted and pushed, and the
 * replicas' cleaners move the log start, which GET /v1/streams/{name} and /metrics report. Bad changes are refused
 * naming the problem and change nothing.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StreamSettingsClusterTest {

  @Test
  void patchingRetentionMovesTheLogStartAndBadPatchesChangeNothing() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of("felix.log.retention-check-interval", "100ms"))) {
      BrokerNode via = cluster.broker(1);
      cluster.awaitBrokersLive(via, 3);
      Reply created = cluster.post(via, "/v1/streams",
          "{\"name\":\"kept\",\"shards\":1,\"replication_factor\":3,\"segment_bytes\":1024,\"retention_ms\":-1}");
      assertTrue(created.status() / 100 == 2, created.body());
      JsonNode config = cluster.get(via, "/v1/streams/kept").json().get("config");
      assertEquals(-1, config.get("retention_ms").asLong());
      assertTrue(config.get("retention_bytes").isNull(), "the broker default: " + config);
      assertEquals(1024, config.get("segment_bytes").asLong());

      try (FelixClient client = cluster.client()) {
        List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
          acks.add(client.produce("kept", 0, new byte[0],
              ("record-" + i + "-" + "x".repeat(90)).getBytes(StandardCharsets.UTF_8), List.of()));
          client.flush(); // one record per batch: many small segments
          acks.get(i).get(20, TimeUnit.SECONDS);
        }
      }
      BrokerCluster.await(Duration.ofSeconds(10), "the leader reports its commit offset",
          () -> shard(cluster, via).get("commit_offset").asLong() == 100);
      assertEquals(0, shard(cluster, via).get("log_start_offset").asLong(), "no limit: nothing deleted");

      // The snapshot compared below must not change on its own: every replica has reported its role and all are in
      // sync (a follower's first report can land after the leader's commit offset).
      BrokerCluster.await(Duration.ofSeconds(10), "every replica reports its role and all are in sync", () -> {
        JsonNode shard = shard(cluster, via);
        boolean reported = true;
        for (JsonNode state : shard.get("replica_states")) {
          reported &= !state.isNull();
        }
        return reported && !shard.get("under_replicated").asBoolean();
      });
      String before = cluster.get(via, "/v1/streams/kept").body();
      expect(400, "retention_bytes must be -1 (unlimited) or at least 0, got -7",
          cluster.patch(via, "/v1/streams/kept", "{\"retention_bytes\":-7}"));
      expect(400, "segment_bytes must be between 1024", cluster.patch(via, "/v1/streams/kept", "{\"segment_bytes\":5}"));
      expect(400, "replication_factor: cannot be changed",
          cluster.patch(via, "/v1/streams/kept", "{\"replication_factor\":1}"));
      expect(400, "shards: can only grow", cluster.patch(via, "/v1/streams/kept", "{\"shards\":0}"));
      expect(400, "retention_ms: must be an integer",
          cluster.patch(via, "/v1/streams/kept", "{\"retention_ms\":\"1h\"}"));
      expect(400, "names no setting", cluster.patch(via, "/v1/streams/kept", "{}"));
      expect(404, "stream 'nope' does not exist", cluster.patch(via, "/v1/streams/nope", "{\"retention_ms\":5}"));
      assertEquals(before, cluster.get(via, "/v1/streams/kept").body());

      Reply patched = cluster.patch(via, "/v1/streams/kept", "{\"retention_bytes\":2048}");
      assertEquals(200, patched.status(), patched.body());
      assertEquals(2048, cluster.get(via, "/v1/streams/kept").json().get("config").get("retention_bytes").asLong());
      BrokerCluster.await(Duration.ofSeconds(15), "the leader's retention moves the log start",
          () -> shard(cluster, via).get("log_start_offset").asLong() > 0);
      long start = shard(cluster, via).get("log_start_offset").asLong();
      assertTrue(start > 70, "about 2 KiB of 100 ~150-byte batches is kept, from offset " + start);
      int leader = shard(cluster, via).get("leader").asInt();
      String metrics = cluster.get(cluster.broker(leader), "/metrics").body();
      assertTrue(metrics.contains("felix_log_start_offset{shard=\"0\",stream=\"kept\"}"), metrics);

      // More shards: placed like a new stream's, and they take records.
      assertEquals(200, cluster.patch(via, "/v1/streams/kept", "{\"shards\":3}").status());
      assertEquals(3, cluster.get(via, "/v1/streams/kept").json().get("shards").asInt());
      try (FelixClient client = cluster.client()) {
        BrokerCluster.await(Duration.ofSeconds(20), "a record reaches the new shard 2", () -> {
          try {
            return client.produce("kept", 2, new byte[0], "new".getBytes(StandardCharsets.UTF_8), List.of())
                .get(10, TimeUnit.SECONDS).offset() >= 0;
          } catch (Exception e) {
            return false;
          }
        });
      }
      JsonNode shards = cluster.get(via, "/v1/streams/kept").json().get("shard_assignments");
      assertEquals(3, shards.size());
      assertEquals(3, java.util.stream.IntStream.range(0, 3).map(i -> shards.get(i).get("leader").asInt())
          .distinct().count(), "one leader per broker: " + shards);
    }
  }

  private static JsonNode shard(BrokerCluster cluster, BrokerNode via) {
    return cluster.get(via, "/v1/streams/kept").json().get("shard_assignments").get(0);
  }

  private static void expect(int status, String message, Reply reply) {
    assertEquals(status, reply.status(), reply.body());
    assertTrue(reply.body().contains(message), reply.body());
  }
}
