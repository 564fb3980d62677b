package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A leader broker stops (as a crashed process would) and is restarted at once, well within the failover
 * timeout, so it is never lost for long enough to fail over. Its replicas refuse to lead again at the epoch their
 * logs already hold; the singleton sees a new incarnation of the broker and runs a failover round for every shard
 * it led. Each of them takes writes again long before the failover timeout, at a newer epoch, and no
 * acknowledged record is lost or duplicated.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class RestartedLeaderClusterTest {

  private static final Logger log = LoggerFactory.getLogger(RestartedLeaderClusterTest.class);
  private static final int SHARDS = 6;
  /** Far longer than the restart takes: only the restart can have started the failover rounds. */
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aLeaderBrokerRestartedWithinTheFailoverTimeoutGetsItsShardsLedAgainWithoutLosingAcknowledgedRecords()
      throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
        "felix.control.failover-timeout", FAILOVER_TIMEOUT.toSeconds() + "s"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode victim = cluster.live().stream().filter(b -> b != host).reduce((a, b) -> b).orElseThrow();
      cluster.awaitBrokersLive(host, 3);
      // No moves: leadership changes here come from the restart alone.
      cluster.createStreamAndPausePlacement(host, "events", SHARDS);

      JsonNode before = cluster.get(host, "/v1/streams/events").json().get("shard_assignments");
      List<Integer> led = cluster.shardsLedBy(host, "events", victim.id());
      assertEquals(2, led.size(), "a fresh 6-shard stream on 3 brokers puts 2 leaders on each: " + before);

      try (FelixClient client = cluster.client(); FelixClient reader = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "events", SHARDS);
        ledger.startOnEveryShard(200, 100);

        long stoppedAt = System.nanoTime();
        cluster.stop(victim);
        cluster.add(victim.id(), "");
        List<CompletableFuture<Long>> writable = ledger.writableAgain(led, stoppedAt);
        // Bounded well below the failover timeout: the shards must not wait for it (without the restart
        // detection they would wait for ever, the restarted broker never being lost that long).
        long bound = FAILOVER_TIMEOUT.toMillis() / 2;
        long recoveredMillis = 0;
        for (CompletableFuture<Long> shard : writable) {
          try {
            recoveredMillis = Math.max(recoveredMillis, shard.get(bound, TimeUnit.MILLISECONDS));
          } catch (TimeoutException e) {
            fail("a shard led by restarted broker " + victim.id() + " took no writes within " + bound + " ms");
          }
        }
        log.info("RESTART: every shard led by broker {} took writes again {} ms after it stopped", victim.id(),
            recoveredMillis);
        assertTrue(recoveredMillis < bound, "recovered in " + recoveredMillis + " ms");
        ledger.awaitMoreAcknowledged(100); // under the new leaders
        ledger.stop();

        JsonNode after = cluster.get(host, "/v1/streams/events").json().get("shard_assignments");
        for (int shard : led) {
          JsonNode now = after.get(shard);
          assertTrue(now.get("epoch").asLong() > before.get(shard).get("epoch").asLong(), now.toString());
          assertEquals(before.get(shard).get("replicas"), now.get("replicas"));
        }
        int read = ledger.assertAllReadable(reader);
        log.info("Restart: {} records acknowledged, {} failed (not acknowledged), {} read back", ledger.acknowledged(),
            ledger.failures(), read);
        assertTrue(ledger.acknowledged() > 200, "records were written throughout: " + ledger.acknowledged());
      }
    }
  }
}
