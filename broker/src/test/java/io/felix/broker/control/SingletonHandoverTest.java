package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker hosting the placement singleton stops without leaving the cluster (as a crashed process would):
 * the Split Brain Resolver downs it, the singleton starts on another broker and recovers from the journal.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class SingletonHandoverTest {

  private static final Logger log = LoggerFactory.getLogger(SingletonHandoverTest.class);

  @Test
  void singletonRestartsOnAnotherBrokerWithTheSameStreamsAndAssignments() {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode other = cluster.live().stream().filter(b -> b != host).findFirst().orElseThrow();
      BrokerNode third = cluster.live().stream().filter(b -> b != host && b != other).findFirst().orElseThrow();
      BrokerCluster.await(Duration.ofSeconds(20), "3 brokers registered", () -> {
        Reply r = cluster.get(other, "/v1/brokers");
        return r.status() == 200 && r.json().size() == 3;
      });
      assertEquals(201, cluster.post(other, "/v1/streams", "{\"name\":\"a\",\"shards\":6,\"replication_factor\":3}").status());
      assertEquals(201, cluster.post(other, "/v1/streams", "{\"name\":\"b\",\"shards\":12,\"replication_factor\":2}").status());
      JsonNode aBefore = cluster.get(other, "/v1/streams/a").json();
      JsonNode bBefore = cluster.get(other, "/v1/streams/b").json();
      List<String> streamsBefore = definitions(cluster.get(other, "/v1/streams").json());

      long stoppedAt = System.nanoTime();
      cluster.stop(host);
      // While the singleton moves, a broker that answered no command lists the streams from its own table.
      Reply during = cluster.get(third, "/v1/streams");
      assertEquals(200, during.status(), during.body());
      assertEquals(streamsBefore, definitions(during.json()));
      // replication-status asks the singleton each time (the lists may answer from a view shared for a second).
      BrokerCluster.await(Duration.ofSeconds(30), "the singleton answering again", () ->
          cluster.get(other, "/v1/replication-status").status() == 200
              && !cluster.singletonHost().address().equals(host.address()));
      long handoverMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
      log.info("Placement singleton answered again {} ms after its host (broker {}) stopped", handoverMillis, host.id());

      assertNotEquals(host.address(), cluster.singletonHost().address());
      assertEquals(streamsBefore, definitions(cluster.get(other, "/v1/streams").json()));
      assertSameAssignments(aBefore, cluster.get(other, "/v1/streams/a").json(), host.id());
      assertSameAssignments(bBefore, cluster.get(other, "/v1/streams/b").json(), host.id());
      // The recovered singleton keeps deciding: the journal takes its events after the old incarnation's.
      assertEquals(201, cluster.post(other, "/v1/streams", "{\"name\":\"c\",\"shards\":2,\"replication_factor\":1}").status());
      assertEquals(3, cluster.get(other, "/v1/streams").json().size());
    }
  }

  /** What defines each stream (name, shards, replication factor), without its live replication state. */
  private static List<String> definitions(JsonNode streams) {
    List<String> definitions = new ArrayList<>();
    streams.forEach(s -> definitions.add(s.get("name").asText() + "/" + s.get("shards").asInt() + "/"
        + s.get("replication_factor").asInt()));
    return definitions;
  }

  /** Replica sets never change; a leader changes only where the stopped broker led, to a higher epoch. */
  static void assertSameAssignments(JsonNode before, JsonNode after, int lostBroker) {
    assertEquals(before.get("shard_assignments").size(), after.get("shard_assignments").size());
    for (int i = 0; i < before.get("shard_assignments").size(); i++) {
      JsonNode was = before.get("shard_assignments").get(i);
      JsonNode now = after.get("shard_assignments").get(i);
      assertEquals(was.get("replicas"), now.get("replicas"));
      if (was.get("leader").asInt() != lostBroker) {
        assertEquals(was.get("leader"), now.get("leader"));
        assertEquals(was.get("epoch"), now.get("epoch"));
      } else if (now.get("leader").asInt() != lostBroker) {
        assertTrue(now.get("epoch").asLong() > was.get("epoch").asLong(), now.toString());
      }
    }
  }
}
