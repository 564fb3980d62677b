package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three brokers, streams and a cache created over the admin API in the benchmark order of docs/placement.md: every
 * stream and the cache end within one leader of even, and so does the cluster total.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class StreamPlacementClusterTest {

  static BrokerCluster cluster;

  @BeforeAll
  static void start() {
    cluster = BrokerCluster.start(3, Map.of());
    cluster.awaitBrokersLive(cluster.live().get(0), 3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void streamsCreatedInBenchmarkOrderAreLevelPerStreamAndInTotal() {
    BrokerNode via = cluster.broker(1);
    // The benchmark's groups: other streams first, then the 12-shard stream, recreated three times.
    create(via, "perf-acks-none", 12);
    create(via, "perf-acks-all", 12);
    create(via, "perf-leader", 12);
    create(via, "orders", 7);
    // A real cache (keyed entries, read by key), placed by the same per-group rules as the streams.
    BrokerCluster.Reply cache = cluster.post(via, "/v1/caches",
        "{\"name\":\"cache-sessions\",\"shards\":6,\"replication_factor\":3}");
    assertEquals(201, cache.status(), cache.body());
    create(via, "perf-quorum", 12);
    for (int i = 0; i < 3; i++) {
      assertEquals(204, cluster.delete(via, "/v1/streams/perf-quorum").status());
      create(via, "perf-quorum", 12);
    }

    JsonNode status = cluster.get(cluster.broker(2), "/v1/replication-status?format=json").json();
    assertEquals(List.of(4, 4, 4), counts(status.get("streams").get("perf-quorum")));
    for (String stream : List.of("perf-acks-none", "perf-acks-all", "perf-leader", "orders", "cache-sessions")) {
      assertWithinOne(counts(status.get("streams").get(stream)), stream);
    }
    List<Integer> totals = counts(status.get("total"));
    assertWithinOne(totals, "total");
    assertEquals(61, totals.stream().mapToInt(Integer::intValue).sum());

    JsonNode caches = cluster.get(cluster.broker(2), "/v1/caches").json();
    assertEquals(1, caches.size(), caches.toString());
    assertEquals("cache-sessions", caches.get(0).get("name").asText());

    BrokerCluster.Reply text = cluster.get(cluster.broker(0), "/v1/replication-status");
    assertEquals(200, text.status());
    String[] lines = text.body().split("\n");
    assertEquals(7, lines.length, text.body());
    assertEquals("cache-sessions:0=2,1=2,2=2", lines[0]);
    assertTrue(List.of(lines).contains("perf-quorum:0=4,1=4,2=4"), text.body());
    assertTrue(lines[6].matches("total:0=\\d+,1=\\d+,2=\\d+"), lines[6]);
    assertEquals("total:0=" + totals.get(0) + ",1=" + totals.get(1) + ",2=" + totals.get(2), lines[6]);

    // Every broker hosts every shard with replication factor 3; a stream's description names each shard.
    JsonNode quorum = cluster.get(cluster.broker(0), "/v1/streams/perf-quorum").json();
    assertEquals(12, quorum.get("shard_assignments").size());
    for (JsonNode shard : quorum.get("shard_assignments")) {
      assertEquals(3, shard.get("replicas").size());
      assertEquals(1, shard.get("epoch").asLong());
    }
  }

  @Test
  void deletedStreamsReplicasStopAndTheirDataIsRemovedOnEveryBroker() {
    BrokerNode via = cluster.broker(0);
    create(via, "doomed", 3);
    BrokerCluster.await(Duration.ofSeconds(20), "replica logs of doomed on every broker",
        () -> cluster.live().stream().allMatch(b -> logDirs(b.id(), "doomed-") == 3));
    assertEquals(204, cluster.delete(via, "/v1/streams/doomed").status());
    assertEquals(404, cluster.get(cluster.broker(1), "/v1/streams/doomed").status());
    BrokerCluster.await(Duration.ofSeconds(20), "replica logs of doomed removed",
        () -> cluster.live().stream().allMatch(b -> logDirs(b.id(), "doomed-") == 0));
  }

  private static long logDirs(int broker, String prefix) {
    try (var dirs = java.nio.file.Files.list(cluster.dataDir(broker))) {
      return dirs.filter(d -> d.getFileName().toString().startsWith(prefix)).count();
    } catch (java.io.IOException e) {
      return -1;
    }
  }

  private static void create(BrokerNode via, String name, int shards) {
    BrokerCluster.Reply reply = cluster.post(via, "/v1/streams",
        "{\"name\":\"" + name + "\",\"shards\":" + shards + ",\"replication_factor\":3}");
    assertEquals(201, reply.status(), reply.body());
  }

  static List<Integer> counts(JsonNode perBroker) {
    List<Integer> counts = new ArrayList<>();
    perBroker.fields().forEachRemaining(e -> counts.add(e.getValue().asInt()));
    return counts;
  }

  static void assertWithinOne(List<Integer> counts, String what) {
    assertTrue(Collections.max(counts) - Collections.min(counts) <= 1, what + " is not within one: " + counts);
  }
}
