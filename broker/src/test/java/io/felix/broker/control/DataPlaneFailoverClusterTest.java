package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
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
 * Failover on the data plane's evidence: the Split Brain Resolver waits 60 s and the failover timeout is a minute,
 * so a broker that stops without leaving (its sockets closed, as a killed process's are) can only fail over in
 * time through its replication connections. Its shards must take writes on new leaders within 25 s, with nothing
 * acknowledged lost. When it did not host the placement singleton, the failure detector tolerates 30 s of silence
 * too: the brokers' suspicion reports alone fail it over. When it did, the singleton starts elsewhere only once its
 * host is removed, which Pekko does for a downed member once the failure detector finds it unreachable (8 s here):
 * downing it on the data plane's evidence skips the resolver's 60 s.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DataPlaneFailoverClusterTest {

  private static final Logger log = LoggerFactory.getLogger(DataPlaneFailoverClusterTest.class);
  private static final int SHARDS = 6;
  /** Far below what the failure detector, the resolver and the failover timeout configured here would take. */
  private static final long BOUND_MILLIS = 25_000;

  @Test
  void aStoppedLeaderBrokersShardsFailOverOnTheFollowersSuspicion() throws Exception {
    runFailover(false);
  }

  @Test
  void aStoppedSingletonHostIsDownedOnTheDataPlaneEvidenceAndItsShardsFailOver() throws Exception {
    runFailover(true);
  }

  private void runFailover(boolean singletonHost) throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
        "felix.cluster.acceptable-heartbeat-pause", singletonHost ? "8s" : "30s",
        "felix.cluster.sbr-stable-after", "60s",
        "felix.control.failover-timeout", "60s"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode victim = singletonHost ? host
          : cluster.live().stream().filter(b -> b != host).reduce((a, b) -> b).orElseThrow();
      BrokerNode survivor = cluster.live().stream().filter(b -> b != victim).findFirst().orElseThrow();
      cluster.awaitBrokersLive(survivor, 3);
      cluster.createStreamAndPausePlacement(survivor, "events", SHARDS);
      JsonNode before = cluster.get(survivor, "/v1/streams/events").json().get("shard_assignments");
      List<Integer> led = cluster.shardsLedBy(survivor, "events", victim.id());
      assertEquals(2, led.size(), "a fresh 6-shard stream on 3 brokers puts 2 leaders on each: " + before);

      try (FelixClient client = cluster.client(); FelixClient reader = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "events", SHARDS);
        ledger.startOnEveryShard(200, 100);

        long stoppedAt = System.nanoTime();
        cluster.stop(victim);
        long failoverMillis = 0;
        for (CompletableFuture<Long> shard : ledger.writableAgain(led, stoppedAt)) {
          failoverMillis = Math.max(failoverMillis, shard.get(60, TimeUnit.SECONDS));
        }
        log.info("DATA-PLANE FAILOVER: the shards broker {} ({}) led took writes again {} ms after it stopped",
            victim.id(), singletonHost ? "the singleton's host" : "not the singleton's host", failoverMillis);
        assertTrue(failoverMillis < BOUND_MILLIS, "writable again after " + failoverMillis + " ms");
        ledger.awaitMoreAcknowledged(100);
        ledger.stop();

        JsonNode after = cluster.get(survivor, "/v1/streams/events").json().get("shard_assignments");
        for (int shard : led) {
          JsonNode now = after.get(shard);
          assertNotEquals(victim.id(), now.get("leader").asInt());
          assertTrue(now.get("epoch").asLong() > before.get(shard).get("epoch").asLong(), now.toString());
        }
        ledger.assertAllReadable(reader);
      }
    }
  }
}
