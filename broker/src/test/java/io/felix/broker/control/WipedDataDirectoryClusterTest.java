package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.protocol.client.Acks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker leading shards is stopped, its data directory deleted, and it is started again at once (well within
 * the failover timeout). Its replicas open with neither state nor log: they may lead only provisionally and step
 * down when a follower holds what they lack, never telling the followers to truncate; they count towards no
 * failover quorum. The singleton's failover rounds move the leadership to the replicas that kept their data, and
 * the wiped broker copies every shard back as a follower. No acknowledged record is lost or duplicated.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class WipedDataDirectoryClusterTest {

  private static final Logger log = LoggerFactory.getLogger(WipedDataDirectoryClusterTest.class);
  private static final int SHARDS = 6;
  private static final String STREAM = "wiped";
  /** Far longer than the restart takes: only the restart and the leader check can start failover rounds. */
  private static final Duration FAILOVER_TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aLeaderRestartedWithAnEmptyDataDirectoryLosesNoAcknowledgedRecordAndCopiesEveryShardBack() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
        "felix.control.failover-timeout", FAILOVER_TIMEOUT.toSeconds() + "s"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode victim = cluster.live().stream().filter(b -> b != host).reduce((a, b) -> b).orElseThrow();
      cluster.awaitBrokersLive(host, 3);
      cluster.createStreamAndPausePlacement(host, STREAM, SHARDS);
      List<Integer> led = cluster.shardsLedBy(host, STREAM, victim.id());
      assertEquals(2, led.size(), "a fresh 6-shard stream on 3 brokers puts 2 leaders on each");

      try (FelixClient client = cluster.client(Acks.ALL); FelixClient reader = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, STREAM, SHARDS);
        ledger.startOnEveryShard(500, 1500);

        long stoppedAt = System.nanoTime();
        Path data = cluster.dataDir(victim.id());
        cluster.stop(victim);
        deleteTree(data);
        BrokerNode wiped = cluster.add(victim.id(), "");

        for (CompletableFuture<Long> shard : ledger.writableAgain(led, stoppedAt)) {
          long millis = shard.get(30, TimeUnit.SECONDS);
          log.info("WIPED: a shard led by the wiped broker took writes again {} ms after it stopped", millis);
        }
        ledger.awaitMoreAcknowledged(300);
        ledger.stop();

        JsonNode shards = cluster.get(host, "/v1/streams/" + STREAM).json().get("shard_assignments");
        for (int shard : led) {
          assertNotEquals(victim.id(), shards.get(shard).get("leader").asInt(),
              "a replica without its data does not lead: " + shards.get(shard));
        }
        for (int shard = 0; shard < SHARDS; shard++) {
          ShardId id = new ShardId(STREAM, shard);
          BrokerNode leader = cluster.broker(shards.get(shard).get("leader").asInt());
          BrokerCluster.await(Duration.ofSeconds(20), "the wiped broker copied " + id + " back", () -> {
            ReplicaStatus copy = describe(wiped, id);
            return !copy.recovering() && copy.logEndOffset() == describe(leader, id).logEndOffset();
          });
        }
        int read = ledger.assertAllReadable(reader);
        // The wiped broker's own copy, as a plain-mode consumer connected to it reads it: the same records.
        try (FelixClient local = new FelixClient(ClientSettings.builder(wiped.endpoint().clientAddress())
            .mode(ClientMode.PLAIN).build())) {
          assertEquals(read, ledger.assertAllReadable(local), "the wiped broker's copy holds the same records");
        }
        log.info("WIPED: {} records acknowledged, {} failed (not acknowledged), {} read back", ledger.acknowledged(),
            ledger.failures(), read);
        assertTrue(ledger.acknowledged() >= 1800, "records were written throughout: " + ledger.acknowledged());
      }
    }
  }

  private static ReplicaStatus describe(BrokerNode broker, ShardId id) {
    try {
      return AskPattern.<ReplicaDirectory.Command, ReplicaStatus>ask(broker.dataPlane().directory(),
          replyTo -> new ReplicaDirectory.DescribeReplica(id, replyTo), Duration.ofSeconds(5),
          broker.system().scheduler()).toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError("no status of " + id + " from broker " + broker.id(), e);
    }
  }

  private static void deleteTree(Path root) throws Exception {
    try (Stream<Path> tree = Files.walk(root)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
