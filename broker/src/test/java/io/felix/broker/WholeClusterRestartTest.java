package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import io.felix.protocol.client.Acks;
import io.felix.testing.TestTier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every broker of the cluster stops, then all start again, over one stream (6 shards, replication factor 3,
 * {@code all} acks). The long tier ({@code -Dtier=long}) does it once in each of the six orders three brokers can
 * start in: stopped in order and started 0,1,2; 0,2,1; 1,0,2; 2,1,0; 1,2,0; then terminated without a graceful leave
 * and started 2,0,1. The default tier puts the first seed node (0) in each place once: started 0,2,1 and 1,2,0 after
 * a graceful stop, then 2,0,1 after the abrupt one. After each restart every shard must take writes again within
 * {@link #WRITABLE_BOUND} of the last broker's start (a leader that refuses its old epoch after the restart is
 * failed over by the singleton's leader check) and no shard may stay under-replicated (GET /v1/streams), and at
 * the end every acknowledged record of every round is read back exactly once, at its acknowledged offset.
 */
@Tag("cluster")
class WholeClusterRestartTest {
  static final String STREAM = "restart";
  static final int SHARDS = 6;
  static final Duration WRITABLE_BOUND = Duration.ofSeconds(20);
  /** Every order three brokers can start in; the first seed node (0) first, second and last. */
  static final int[][] EVERY_START_ORDER = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
  /** The first seed node first, last, then (after the abrupt stop) second. */
  static final int[][] SEED_IN_EVERY_PLACE = {{0, 2, 1}, {1, 2, 0}, {2, 0, 1}};

  @Test
  void everyShardIsWritableAgainAfterEachWholeClusterRestartAndNoAcknowledgedRecordIsLost() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of("felix.control.failover-timeout", "2s"))) {
      // On a loaded machine the singleton may answer the first POST after the admin API's timeout: ask again
      // (409 then means the first one created it).
      BrokerCluster.await(Duration.ofSeconds(30), "stream created", () -> {
        int status = cluster.post(cluster.broker(0), "/v1/streams", "{\"name\":\"" + STREAM + "\",\"shards\":"
            + SHARDS + ",\"replication_factor\":3}").status();
        return status == 201 || status == 409;
      });
      cluster.awaitReady();
      BrokerCluster.await(Duration.ofSeconds(30), "placement paused",
          () -> cluster.post(cluster.broker(0), "/v1/placement/pause", "").status() == 200);
      List<RecordLedger> ledgers = new ArrayList<>();
      List<FelixClient> clients = new ArrayList<>();
      try {
        int[][] startOrders = TestTier.pick(SEED_IN_EVERY_PLACE, EVERY_START_ORDER);
        for (int round = 0; round < startOrders.length; round++) {
          FelixClient client = cluster.client(Acks.ALL);
          clients.add(client);
          RecordLedger ledger = new RecordLedger(client, STREAM, SHARDS, "round" + round);
          ledgers.add(ledger);
          ledger.startOnEveryShard(300, 300);
          ledger.stop();

          boolean abrupt = round == startOrders.length - 1;
          for (BrokerNode broker : cluster.live()) {
            cluster.stop(broker);
          }
          // The brokers of the last round stop without leaving the cluster (no coordinated shutdown).
          cluster.override("pekko.coordinated-shutdown.run-by-actor-system-terminate", round == startOrders.length - 2
              ? "off" : "on");
          long started = 0;
          for (int id : startOrders[round]) {
            cluster.add(id, "");
            started = System.nanoTime();
          }
          cluster.awaitUp(3);
          List<Long> writableMs = writableAgain(cluster, started);
          System.out.printf("whole-cluster restart %d (%s, started %s): every shard writable after %s ms%n", round,
              abrupt ? "abrupt stop" : "graceful stop", java.util.Arrays.toString(startOrders[round]), writableMs);
          for (long ms : writableMs) {
            assertTrue(ms < WRITABLE_BOUND.toMillis(), "round " + round + ": shards writable after " + writableMs
                + " ms, bound " + WRITABLE_BOUND.toMillis() + " ms");
          }
          // And every replica rejoins: no shard stays under-replicated (a replica failed, missing or behind).
          BrokerNode via = cluster.broker(startOrders[round][0]);
          BrokerCluster.await(WRITABLE_BOUND, "round " + round + ": no under-replicated shard", () -> {
            BrokerCluster.Reply streams = cluster.get(via, "/v1/streams");
            return streams.status() == 200
                && streams.json().get(0).path("under_replicated_shards").toString().equals("[]");
          });
        }
        try (FelixClient reader = cluster.client()) {
          for (RecordLedger ledger : ledgers) {
            assertEquals(0, ledger.failures(), "records of a stopped ledger that failed");
            int read = ledger.assertAllReadable(reader);
            assertTrue(read >= ledger.acknowledged(), read + " read < " + ledger.acknowledged() + " acknowledged");
          }
        }
      } finally {
        for (FelixClient client : clients) {
          client.close();
        }
      }
    }
  }

  /** Milliseconds from {@code sinceNanos} until each shard acknowledged a record with a new client. */
  private static List<Long> writableAgain(BrokerCluster cluster, long sinceNanos) throws Exception {
    try (FelixClient client = cluster.client(Acks.ALL)) {
      RecordLedger probe = new RecordLedger(client, STREAM, SHARDS, "probe-" + sinceNanos);
      List<CompletableFuture<Long>> shards = probe.writableAgain(IntStream.range(0, SHARDS).boxed().toList(),
          sinceNanos);
      List<Long> out = new ArrayList<>();
      for (CompletableFuture<Long> shard : shards) {
        out.add(shard.get(WRITABLE_BOUND.toMillis() * 3, TimeUnit.MILLISECONDS));
      }
      return out;
    }
  }
}
