package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.client.FelixClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader broker stops without leaving the cluster (as a crashed process would) while records are written:
 * its shards get new leaders (fence, then choose), writes continue, and no acknowledged record is lost or
 * duplicated. The time from the stop until every shard it led takes writes again is measured and logged, once
 * for a broker that did not host the placement singleton and once for the one that did.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class FailoverClusterTest {

  private static final Logger log = LoggerFactory.getLogger(FailoverClusterTest.class);
  private static final int SHARDS = 6;

  @Test
  void stoppingALeaderBrokerPromotesItsShardsLosesNoAcknowledgedRecordAndItRejoinsAsFollower() throws Exception {
    runFailover(false);
  }

  @Test
  void stoppingTheSingletonHostPromotesItsShardsAfterTheHandover() throws Exception {
    runFailover(true);
  }

  private void runFailover(boolean singletonHost) throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode victim = singletonHost ? host
          : cluster.live().stream().filter(b -> b != host).reduce((a, b) -> b).orElseThrow();
      BrokerNode survivor = cluster.live().stream().filter(b -> b != victim).findFirst().orElseThrow();
      cluster.awaitBrokersLive(survivor, 3);
      // Paused placement still promotes; it only starts no moves, so the measurement is of the failover alone
      // (resumed, placement would at once level the stream over the two brokers left).
      cluster.createStreamAndPausePlacement(survivor, "events", SHARDS);

      JsonNode before = cluster.get(survivor, "/v1/streams/events").json().get("shard_assignments");
      List<Integer> led = cluster.shardsLedBy(survivor, "events", victim.id());
      assertEquals(2, led.size(), "a fresh 6-shard stream on 3 brokers puts 2 leaders on each: " + before);

      try (FelixClient client = cluster.client(); FelixClient reader = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "events", SHARDS);
        ledger.startOnEveryShard(200, 100);

        long stoppedAt = System.nanoTime();
        cluster.stop(victim);
        List<CompletableFuture<Long>> writable = ledger.writableAgain(led, stoppedAt);
        long failoverMillis = 0;
        for (CompletableFuture<Long> shard : writable) {
          failoverMillis = Math.max(failoverMillis, shard.get(60, TimeUnit.SECONDS));
        }
        log.info("FAILOVER: every shard led by broker {} ({}) took writes again {} ms after it stopped", victim.id(),
            singletonHost ? "host of the placement singleton" : "not the singleton host", failoverMillis);
        ledger.awaitMoreAcknowledged(100); // under the new leaders
        ledger.stop();

        JsonNode after = cluster.getJson(survivor, "/v1/streams/events").get("shard_assignments");
        for (int shard : led) {
          JsonNode now = after.get(shard);
          assertNotEquals(victim.id(), now.get("leader").asInt());
          assertTrue(now.get("epoch").asLong() > before.get(shard).get("epoch").asLong(), now.toString());
          assertEquals(before.get(shard).get("replicas"), now.get("replicas"));
        }
        int read = ledger.assertAllReadable(reader);
        log.info("Failover: {} records acknowledged, {} failed (not acknowledged), {} read back", ledger.acknowledged(),
            ledger.failures(), read);
        assertTrue(ledger.acknowledged() > 200, "records were written throughout: " + ledger.acknowledged());
        // GET /v1/streams/{name} shows each leader's commit offset: the offset the reads above ended at
        // (a leader's epoch-start batch takes an offset too, so it is not the number of records).
        JsonNode shards = cluster.getJson(survivor, "/v1/streams/events").get("shard_assignments");
        for (int shard = 0; shard < SHARDS; shard++) {
          assertEquals(ledger.endOffsets().get(shard).longValue(), shards.get(shard).get("commit_offset").asLong(),
              "commit offset of events/" + shard);
        }

        if (!singletonHost) {
          // The stopped broker comes back with its data: it rejoins as a follower of everything it held, and
          // placement then hands it its share of leaders again through moves.
          cluster.add(victim.id(), "");
          cluster.awaitUp(3);
          assertEquals(200, cluster.post(survivor, "/v1/placement/resume", "").status());
          RecordLedger more = new RecordLedger(client, "events", SHARDS, "after-rejoin");
          more.start(100);
          BrokerCluster.await(Duration.ofSeconds(60), "broker " + victim.id() + " back and leading its share", () -> {
            JsonNode status = cluster.get(survivor, "/v1/replication-status?format=json").json();
            return status.get("streams").get("events").get(String.valueOf(victim.id())).asInt() == 2
                && cluster.get(survivor, "/v1/shard-moves").json().get("in_flight").size() == 0;
          });
          // The rejoin can finish before many writes went through on a fast run; keep writing until 51 are in.
          BrokerCluster.await(Duration.ofSeconds(30), "writes acknowledged after the rejoin",
              () -> more.acknowledged() > 50);
          more.stop();
          more.assertAllReadable(reader);
          assertTrue(more.acknowledged() > 50, "writes continued while it rejoined: " + more.acknowledged());
          ledger.assertAllReadable(reader);
        }
      }
    }
  }
}
