package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.shard.ReplicaFaults;
import io.felix.client.FelixClient;
import java.time.Duration;
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
 * A replica assigned to lead that does not (it refuses the epoch its log held before it restarted) says so to the
 * singleton, which fails the shard over at once. The placement interval (the leader check's period) and the
 * failover timeout are set far longer than the bounds asserted: only the replica's own report can have started
 * the failover rounds in time.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class LeaderNotServingClusterTest {

  private static final Logger log = LoggerFactory.getLogger(LeaderNotServingClusterTest.class);
  private static final int SHARDS = 3;
  /** The leader check needs two answers this far apart; the report needs none. */
  private static final Duration PLACEMENT_INTERVAL = Duration.ofSeconds(20);
  private static final Map<String, Object> SETTINGS = Map.of(
      "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
      "felix.control.placement-interval", PLACEMENT_INTERVAL.toSeconds() + "s",
      "felix.control.failover-timeout", "60s");

  @Test
  void aRespawnedLeaderReplicaThatComesBackAsFollowerGetsANewLeaderThroughItsReport() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, SETTINGS)) {
      BrokerNode host = cluster.singletonHost();
      cluster.awaitBrokersLive(host, 3);
      cluster.createStreamAndPausePlacement(host, "events", SHARDS);
      BrokerNode victim = cluster.live().stream().filter(b -> b != host).findFirst().orElseThrow();
      int shard = cluster.shardsLedBy(host, "events", victim.id()).get(0);
      long epochBefore = epoch(cluster, host, shard);

      try (FelixClient client = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "events", SHARDS);
        assertTrue(ledger.writeAndWait(shard), "the shard takes writes before the fault");
        long stoppedAt = System.nanoTime();
        ReplicaFaults.stopUnretired(victim.dataPlane(), new ShardId("events", shard));
        // Respawned after 1 s, it refuses its old epoch and reports; fence, promote, push follow at once.
        BrokerCluster.await(Duration.ofSeconds(30), "a newer epoch for shard " + shard,
            () -> epoch(cluster, host, shard) > epochBefore);
        long millis = (System.nanoTime() - stoppedAt) / 1_000_000;
        log.info("RESPAWN: shard {} had a leader at a newer epoch {} ms after its leader replica stopped", shard,
            millis);
        assertTrue(millis < 4_000, "new leader after " + millis + " ms");
        ledger.writableAgain(List.of(shard), stoppedAt).get(0).get(30, TimeUnit.SECONDS);
        ledger.stop();
        ledger.assertAllReadable(client); // every acknowledged record, once, at its offset
      }
    }
  }

  @Test
  void theSingletonsHostRestartingBeforeTheSingletonMovesLeavesNoShardLeaderless() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, SETTINGS)) {
      BrokerNode host = cluster.singletonHost();
      cluster.awaitBrokersLive(host, 3);
      cluster.createStreamAndPausePlacement(host, "events", SHARDS);
      List<Integer> led = cluster.shardsLedBy(host, "events", host.id());
      assertFalse(led.isEmpty());
      BrokerNode other = cluster.live().stream().filter(b -> b != host).findFirst().orElseThrow();

      try (FelixClient client = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "events", SHARDS);
        for (int shard = 0; shard < SHARDS; shard++) {
          assertTrue(ledger.writeAndWait(shard), "shard " + shard + " takes writes before the restart");
        }
        cluster.stop(host);
        cluster.add(host.id(), ""); // back before the singleton has moved: its new incarnation is a first sighting
        BrokerCluster.await(Duration.ofSeconds(40), "the singleton answering on another broker", () ->
            cluster.get(other, "/v1/replication-status").status() == 200 && cluster.singletonHost().id() != host.id());
        long recoveredAt = System.nanoTime();
        List<CompletableFuture<Long>> writable = ledger.writableAgain(led, recoveredAt);
        long slowest = 0;
        for (CompletableFuture<Long> shard : writable) {
          slowest = Math.max(slowest, shard.get(40, TimeUnit.SECONDS));
        }
        log.info("HOST RESTART: shards {} led by restarted broker {} took writes {} ms after the singleton moved", led,
            host.id(), slowest);
        assertTrue(slowest < PLACEMENT_INTERVAL.toMillis() / 2, "writable again after " + slowest + " ms");
        ledger.stop();
        ledger.assertAllReadable(client); // every acknowledged record, once, at its offset
      }
    }
  }

  private static long epoch(BrokerCluster cluster, BrokerNode via, int shard) {
    JsonNode assignments = cluster.get(via, "/v1/streams/events").json().get("shard_assignments");
    return assignments.get(shard).get("epoch").asLong();
  }
}
