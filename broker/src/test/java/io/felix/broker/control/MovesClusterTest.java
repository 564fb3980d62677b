package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import io.felix.broker.RecordLedger;
import io.felix.client.FelixClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Moves through the admin API on a live cluster with records written throughout. */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class MovesClusterTest {

  private static final Logger log = LoggerFactory.getLogger(MovesClusterTest.class);

  @Test
  void pauseStopsMovesManualMovesCompleteAndResumeRebalancesWithDataIntact() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode via = cluster.broker(1);
      cluster.awaitBrokersLive(via, 3);
      create(cluster, via, "a", 6, 3);
      create(cluster, via, "b", 3, 2);
      cluster.awaitReady();
      assertEquals(200, cluster.post(via, "/v1/placement/pause", "").status());
      assertTrue(cluster.get(via, "/v1/placement").json().get("paused").asBoolean());

      try (FelixClient client = cluster.client(); FelixClient reader = cluster.client();
           FelixClient clientB = cluster.client(); FelixClient readerB = cluster.client()) {
        RecordLedger ledgerA = new RecordLedger(client, "a", 6);
        RecordLedger ledgerB = new RecordLedger(clientB, "b", 3);
        ledgerA.start(100);
        ledgerB.start(100);
        BrokerCluster.await(Duration.ofSeconds(30), "records acknowledged on a and b before the moves",
            () -> ledgerA.acknowledged() >= 20 && ledgerB.acknowledged() >= 20);

        // A staged leader move: b/0 goes to the broker that holds no replica of it.
        JsonNode b0 = shard(cluster, via, "b", 0);
        int outsider = List.of(0, 1, 2).stream().filter(id -> !contains(b0.get("replicas"), id)).findFirst().orElseThrow();
        Reply started = cluster.post(via, "/v1/shard-moves", "{\"stream\":\"b\",\"shard\":0,\"to\":" + outsider + "}");
        assertEquals(200, started.status(), started.body());
        JsonNode staged = awaitMoveFinished(cluster, via, "b", 0);
        assertEquals("completed", staged.get("state").asText(), staged.toString());
        assertTrue(staged.get("staged").asBoolean());
        log.info("LEADER MOVE (staged copy, fence, catch-up, cut-over) of b/0 from {} to {} took {} ms",
            b0.get("leader").asInt(), outsider, staged.get("duration_ms").asLong());
        JsonNode b0After = shard(cluster, via, "b", 0);
        assertEquals(outsider, b0After.get("leader").asInt());
        assertTrue(contains(b0After.get("replicas"), outsider));
        assertFalse(contains(b0After.get("replicas"), b0.get("leader").asInt()), b0After.toString());
        assertTrue(b0After.get("epoch").asLong() > b0.get("epoch").asLong());

        // Push stream a out of balance by hand while paused: broker 0 takes leaders until it leads 4 of 6.
        int manual = 0;
        for (int shard = 0; shard < 6 && leadersOf(cluster, via, "a", 0) < 4; shard++) {
          if (shard(cluster, via, "a", shard).get("leader").asInt() != 0) {
            assertEquals(200, cluster.post(via, "/v1/shard-moves", "{\"stream\":\"a\",\"shard\":" + shard + ",\"to\":0}").status());
            assertEquals("completed", awaitMoveFinished(cluster, via, "a", shard).get("state").asText());
            manual++;
          }
        }
        assertEquals(4, leadersOf(cluster, via, "a", 0));
        // Paused: placement passes that see broker 0 leading 4 of 6 plan and start nothing. The first pass after
        // this point may have begun before the last manual move finished; the one after it cannot have.
        long sawImbalance = awaitPassAfter(cluster, via, awaitPassAfter(cluster, via, lastPassAt(cluster, via)));
        JsonNode placement = cluster.get(via, "/v1/placement").json();
        assertTrue(placement.get("paused").asBoolean(), placement.toString());
        assertTrue(placement.get("last_pass").get("at_ms").asLong() >= sawImbalance, placement.toString());
        assertEquals(0, placement.get("last_pass").get("planned").size(), "a paused pass plans no move: " + placement);
        JsonNode moves = cluster.get(via, "/v1/shard-moves").json();
        assertEquals(0, moves.get("in_flight").size());
        assertEquals(1 + manual, moves.get("recent").size(), moves.toString());

        assertEquals(200, cluster.post(via, "/v1/placement/resume", "").status());
        BrokerCluster.await(Duration.ofSeconds(60), "stream a level again", () -> {
          JsonNode status = cluster.get(via, "/v1/replication-status?format=json").json();
          return spread(status.get("streams").get("a")) <= 1 && spread(status.get("total")) <= 1
              && cluster.get(via, "/v1/shard-moves").json().get("in_flight").size() == 0;
        });
        JsonNode all = cluster.get(via, "/v1/shard-moves").json().get("recent");
        Set<String> planned = new HashSet<>();
        for (JsonNode move : all) {
          if (!move.get("reason").asText().equals("manual")) {
            assertEquals("completed", move.get("state").asText(), move.toString());
            assertTrue(planned.add(move.get("stream").asText() + "/" + move.get("shard").asInt()),
                "placement moved a shard twice: " + all);
          }
        }
        assertTrue(planned.size() >= 2, "resume rebalanced stream a: " + all);

        ledgerA.stop();
        ledgerB.stop();
        int readA = ledgerA.assertAllReadable(reader);
        int readB = ledgerB.assertAllReadable(readerB);
        log.info("Moves: {} + {} records acknowledged, {} + {} read back", ledgerA.acknowledged(), ledgerB.acknowledged(),
            readA, readB);
        assertTrue(ledgerA.acknowledged() > 100 && ledgerB.acknowledged() > 100);
      }
    }
  }

  @Test
  void joiningBrokerReceivesShardsDrainingMovesThemOffAndRemovalWaitsUntilEmpty() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode via = cluster.broker(0);
      cluster.awaitBrokersLive(via, 3);
      create(cluster, via, "c", 8, 2);
      cluster.awaitReady();
      try (FelixClient client = cluster.client(); FelixClient reader = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "c", 8);
        ledger.start(100);

        cluster.add(3, "");
        cluster.awaitUp(4);
        cluster.awaitBrokersLive(via, 4);
        BrokerCluster.await(Duration.ofSeconds(60), "broker 3 leading its share of c", () -> {
          JsonNode status = cluster.get(via, "/v1/replication-status?format=json").json();
          return status.get("streams").get("c").get("3").asInt() == 2 && spread(status.get("streams").get("c")) == 0
              && cluster.get(via, "/v1/shard-moves").json().get("in_flight").size() == 0;
        });

        assertEquals(200, cluster.post(via, "/v1/brokers/3/drain", "").status());
        Reply refused = cluster.delete(via, "/v1/brokers/3");
        assertEquals(409, refused.status(), refused.body());
        assertTrue(refused.json().get("error").asText().contains("drain it first"));
        awaitDrained(cluster, via, 3);

        // Changed our mind: the broker takes shards again, and rebalancing gives it its share of leaders back.
        Reply undrained = cluster.delete(via, "/v1/brokers/3/drain");
        assertEquals(200, undrained.status(), undrained.body());
        assertEquals("live", brokerState(cluster, via, 3));
        BrokerCluster.await(Duration.ofSeconds(60), "broker 3 leading its share of c again", () ->
            leadersOf(cluster, via, "c", 3) == 2);

        assertEquals(200, cluster.post(via, "/v1/brokers/3/drain", "").status());
        awaitDrained(cluster, via, 3);
        assertEquals(204, cluster.delete(via, "/v1/brokers/3").status());
        List<Integer> ids = new ArrayList<>();
        cluster.get(via, "/v1/brokers").json().forEach(b -> ids.add(b.get("id").asInt()));
        assertEquals(List.of(0, 1, 2), ids);
        JsonNode status = cluster.get(via, "/v1/replication-status?format=json").json();
        assertTrue(spread(status.get("streams").get("c")) <= 1, status.toString());

        ledger.stop();
        ledger.assertAllReadable(reader);
        assertTrue(ledger.acknowledged() > 100);
      }
    }
  }

  private static void awaitDrained(BrokerCluster cluster, BrokerNode via, int broker) {
    BrokerCluster.await(Duration.ofSeconds(60), "broker " + broker + " drained", () -> {
      for (JsonNode b : cluster.get(via, "/v1/brokers").json()) {
        if (b.get("id").asInt() == broker) {
          return b.get("state").asText().equals("draining") && b.get("replicas").asInt() == 0;
        }
      }
      return false;
    });
  }

  private static String brokerState(BrokerCluster cluster, BrokerNode via, int broker) {
    for (JsonNode b : cluster.get(via, "/v1/brokers").json()) {
      if (b.get("id").asInt() == broker) {
        return b.get("state").asText();
      }
    }
    throw new AssertionError("broker " + broker + " is not listed");
  }

  static void create(BrokerCluster cluster, BrokerNode via, String name, int shards, int rf) {
    Reply reply = cluster.post(via, "/v1/streams",
        "{\"name\":\"" + name + "\",\"shards\":" + shards + ",\"replication_factor\":" + rf + "}");
    assertEquals(201, reply.status(), reply.body());
  }

  static JsonNode shard(BrokerCluster cluster, BrokerNode via, String stream, int shard) {
    return cluster.get(via, "/v1/streams/" + stream).json().get("shard_assignments").get(shard);
  }

  static int leadersOf(BrokerCluster cluster, BrokerNode via, String stream, int broker) {
    return cluster.get(via, "/v1/replication-status?format=json").json().get("streams").get(stream)
        .get(String.valueOf(broker)).asInt();
  }

  /** When the last placement pass ran, per GET /v1/placement (0 before the first). */
  static long lastPassAt(BrokerCluster cluster, BrokerNode via) {
    return cluster.get(via, "/v1/placement").json().get("last_pass").get("at_ms").asLong();
  }

  /** Waits for a placement pass that ran after {@code atMillis} (a last_pass time); returns when it ran. */
  static long awaitPassAfter(BrokerCluster cluster, BrokerNode via, long atMillis) {
    long[] at = new long[1];
    BrokerCluster.await(Duration.ofSeconds(30), "a placement pass after " + atMillis, () -> {
      at[0] = lastPassAt(cluster, via);
      return at[0] > atMillis;
    });
    return at[0];
  }

  static JsonNode awaitMoveFinished(BrokerCluster cluster, BrokerNode via, String stream, int shard) {
    JsonNode[] found = new JsonNode[1];
    BrokerCluster.await(Duration.ofSeconds(60), "move of " + stream + "/" + shard + " finished", () -> {
      JsonNode moves = cluster.get(via, "/v1/shard-moves").json();
      for (JsonNode m : moves.get("in_flight")) {
        if (m.get("stream").asText().equals(stream) && m.get("shard").asInt() == shard) {
          return false;
        }
      }
      for (JsonNode m : moves.get("recent")) {
        if (m.get("stream").asText().equals(stream) && m.get("shard").asInt() == shard) {
          found[0] = m;
          return true;
        }
      }
      return false;
    });
    return found[0];
  }

  static boolean contains(JsonNode array, int value) {
    for (JsonNode n : array) {
      if (n.asInt() == value) {
        return true;
      }
    }
    return false;
  }

  static int spread(JsonNode perBroker) {
    int min = Integer.MAX_VALUE;
    int max = Integer.MIN_VALUE;
    for (JsonNode n : perBroker) {
      min = Math.min(min, n.asInt());
      max = Math.max(max, n.asInt());
    }
    return max - min;
  }
}
