package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader move's destination dies after the leader was fenced: writes to the shard are blocked until the
 * cut-over, which will never come. After {@code move-fence-timeout} the shard gets a failover round instead, long
 * before the copy could be given up. The destination is made slow to catch up (one batch per fetch, fenced at
 * once by a huge catch-up lag) so that the test can stop it while the move is fenced.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class MoveFenceTimeoutClusterTest {

  private static final Logger log = LoggerFactory.getLogger(MoveFenceTimeoutClusterTest.class);
  private static final int SHARDS = 3;
  private static final int RECORDS = 2_000;
  private static final Duration FENCE_TIMEOUT = Duration.ofSeconds(3);

  @Test
  void aMoveWhoseDestinationDiesWhileFencedFailsOverAfterTheFenceTimeout() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
        "felix.control.move-fence-timeout", FENCE_TIMEOUT.toMillis() + "ms",
        "felix.control.move-stall-timeout", "60s",
        "felix.control.move-catch-up-lag", 1_000_000_000,
        "felix.replication.fetch-max-bytes", 1))) {
      BrokerNode host = cluster.singletonHost();
      cluster.awaitBrokersLive(host, 3);
      assertEquals(201, cluster.post(host, "/v1/streams", "{\"name\":\"m\",\"shards\":" + SHARDS
          + ",\"replication_factor\":2}").status());
      cluster.awaitReady();
      assertEquals(200, cluster.post(host, "/v1/placement/pause", "").status());
      // A shard whose outsider (the move's destination) does not host the singleton: stopping it moves nothing else.
      int shard = -1;
      int found = -1;
      for (int s = 0; s < SHARDS && shard < 0; s++) {
        JsonNode a = cluster.get(host, "/v1/streams/m").json().get("shard_assignments").get(s);
        for (int b = 0; b < 3; b++) {
          if (b != host.id() && !a.get("replicas").toString().contains(String.valueOf(b))) {
            shard = s;
            found = b;
          }
        }
      }
      assertTrue(shard >= 0, "some shard's outsider is not the singleton's host");
      int destination = found;

      try (FelixClient client = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "m", SHARDS);
        for (int i = 0; i < RECORDS; i++) {
          assertTrue(ledger.writeAndWait(shard), "record " + i + " acknowledged");
        }
        assertEquals(200, cluster.post(host, "/v1/shard-moves", "{\"stream\":\"m\",\"shard\":" + shard + ",\"to\":"
            + destination + "}").status());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!"catching-up-fenced".equals(moveState(cluster, host))) {
          if (System.nanoTime() > deadline || moveState(cluster, host) == null) {
            fail("the move was never seen fenced (it finished first?): " + cluster.get(host, "/v1/shard-moves").body());
          }
          Thread.sleep(5);
        }
        long fencedSeenAt = System.nanoTime();
        cluster.stop(cluster.broker(destination));

        long millis = ledger.writableAgain(List.of(shard), fencedSeenAt).get(0).get(60, TimeUnit.SECONDS);
        log.info("FENCED MOVE: shard {} took writes again {} ms after its move was fenced and destination {} stopped",
            shard, millis, destination);
        assertTrue(millis < FENCE_TIMEOUT.toMillis() + 5_000, "writable again after " + millis + " ms");
        // The first write may have beaten the fence to the old leader: the move ends by the fence timeout, and a
        // write after that is taken by the leader the failover chose.
        BrokerCluster.await(FENCE_TIMEOUT.plusSeconds(5), "the fenced move aborted", () ->
            cluster.get(host, "/v1/shard-moves").json().get("in_flight").isEmpty());
        assertTrue(ledger.writeAndWait(shard), "a record acknowledged after the failover");
        JsonNode moves = cluster.get(host, "/v1/shard-moves").json();
        assertEquals(0, moves.get("in_flight").size(), moves.toString());
        assertEquals("aborted", moves.get("recent").get(0).get("state").asText(), moves.toString());
        ledger.assertAllReadable(client, List.of(shard)); // the other shards were not written (one is down)
      }
    }
  }

  /** The state of the move in flight, null when none is. */
  private static String moveState(BrokerCluster cluster, BrokerNode via) {
    JsonNode inFlight = cluster.get(via, "/v1/shard-moves").json().get("in_flight");
    return inFlight.size() == 0 ? null : inFlight.get(0).get("state").asText();
  }
}
