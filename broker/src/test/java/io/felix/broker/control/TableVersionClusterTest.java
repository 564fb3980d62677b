package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.RecordLedger;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.log.LogQuarantine;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The journal loses its last decisions (as an H2 file does when the process serving it dies before they reach
 * the disk) while the singleton's host stops: the new singleton recovers an older state than the table the
 * brokers hold. It must number its tables above what the brokers hold, so that they take its tables at all and
 * no version is ever held with two different contents.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class TableVersionClusterTest {

  private final String journalUrl = "jdbc:h2:mem:felix-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  /** Every table any broker was seen holding, by version. */
  private final Map<Long, AssignmentTable> seen = new ConcurrentHashMap<>();
  private final List<String> conflicts = new ArrayList<>();
  private volatile boolean watching = true;

  @Test
  void tableVersionsNeverRepeatWithDifferentContentAcrossAHandoverThatLostTheJournalsTail() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off",
        "felix.persistence.url", journalUrl))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode other = cluster.live().stream().filter(b -> b != host).findFirst().orElseThrow();
      cluster.awaitBrokersLive(host, 3);
      assertEquals(201, cluster.post(host, "/v1/streams", "{\"name\":\"a\",\"shards\":3,\"replication_factor\":3}")
          .status());
      cluster.awaitReady();
      long keptEvents = lastSequenceNumber();
      assertEquals(201, cluster.post(host, "/v1/streams", "{\"name\":\"b\",\"shards\":3,\"replication_factor\":3}")
          .status());
      BrokerCluster.await(Duration.ofSeconds(20), "every broker holding stream b", () -> cluster.live().stream()
          .allMatch(b -> held(b).streams().containsKey("b")));
      Thread watcher = new Thread(() -> watch(cluster), "table-watcher");
      watcher.start();
      long heldBefore = held(other).version();

      cluster.stop(host);
      loseJournalEventsAfter(keptEvents); // before the new singleton recovers: it starts once the host is removed
      // replication-status asks the singleton each time (the lists may answer from a view shared for a second).
      BrokerCluster.await(Duration.ofSeconds(40), "the singleton answering on another broker", () ->
          cluster.get(other, "/v1/replication-status").status() == 200 && cluster.singletonHost() != host);

      // Before it decides anything, the new singleton numbers its tables above what the brokers hold (else the
      // next decisions would reuse versions the brokers hold with other content, and be ignored).
      BrokerCluster.await(Duration.ofSeconds(5), "the singleton's table version above " + heldBefore, () ->
          singletonTableVersion(other) > heldBefore);
      // A decision of the new singleton reaches the brokers.
      assertEquals(201, cluster.post(other, "/v1/streams", "{\"name\":\"c\",\"shards\":2,\"replication_factor\":2}")
          .status());
      BrokerCluster.await(Duration.ofSeconds(20), "every broker holding stream c", () -> cluster.live().stream()
          .allMatch(b -> held(b).streams().containsKey("c")));
      // Stream b, lost with the journal's tail, is not in that table: its logs are set aside, never deleted.
      for (BrokerNode b : cluster.live()) {
        Path quarantine = cluster.dataDir(b.id()).resolve(LogQuarantine.DIRECTORY);
        BrokerCluster.await(Duration.ofSeconds(10), "broker " + b.id() + " setting stream b's logs aside", () ->
            setAside(quarantine).equals(List.of("b-0", "b-1", "b-2")));
        for (int shard = 0; shard < 3; shard++) {
          assertFalse(Files.exists(cluster.dataDir(b.id()).resolve("b-" + shard)), "b-" + shard + " left in place");
        }
      }
      try (FelixClient client = cluster.client()) {
        RecordLedger ledger = new RecordLedger(client, "c", 2);
        assertTrue(ledger.writeAndWait(0) && ledger.writeAndWait(1), "stream c takes writes");
      }
      // The shard the stopped host led was failed over once: its new leader took the first table naming it.
      // (Numbered below what the brokers held, that table was ignored, and the leader check failed the shard
      // over again and again, each time a version higher, until the numbers passed the brokers' by chance.)
      for (JsonNode a : cluster.get(other, "/v1/streams/a").json().get("shard_assignments")) {
        assertTrue(a.get("epoch").asLong() <= 2, "one failover at most: " + a);
      }
      watching = false;
      watcher.join(10_000);
      assertTrue(held(other).version() > heldBefore);
      synchronized (conflicts) {
        assertEquals(List.of(), conflicts);
      }
    }
  }

  /** The replica logs in a quarantine directory, by their original names (without the time they were moved). */
  private static List<String> setAside(Path quarantine) {
    if (!Files.isDirectory(quarantine)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(quarantine)) {
      return entries.map(p -> p.getFileName().toString().replaceFirst("-[0-9]+$", "")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void watch(BrokerCluster cluster) {
    while (watching) {
      for (BrokerNode broker : cluster.live()) {
        try {
          AssignmentTable table = held(broker);
          AssignmentTable before = seen.putIfAbsent(table.version(), table);
          if (before != null && !before.equals(table)) {
            synchronized (conflicts) {
              conflicts.add("version " + table.version() + " held as " + before + " and as " + table);
            }
          }
        } catch (RuntimeException e) {
          // a broker stopping: the next round asks the live ones
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** The version of the table the singleton holds (and publishes), asked through {@code via}'s proxy. */
  private static long singletonTableVersion(BrokerNode via) {
    try {
      return AskPattern.<PlacementController.Command, ControlView>ask(via.singleton(), PlacementController.GetView::new,
          Duration.ofSeconds(3), via.system().scheduler()).toCompletableFuture().get(5, TimeUnit.SECONDS)
          .state().tableVersion();
    } catch (Exception e) {
      return -1;
    }
  }

  private static AssignmentTable held(BrokerNode broker) {
    try {
      return AskPattern.<AssignmentHolder.Command, AssignmentTable>ask(broker.holder(), AssignmentHolder.GetTable::new,
          Duration.ofSeconds(3), broker.system().scheduler()).toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("broker " + broker.id() + " did not say which table it holds", e);
    }
  }

  private long lastSequenceNumber() throws SQLException {
    try (Connection c = DriverManager.getConnection(journalUrl, "sa", "");
        Statement s = c.createStatement();
        ResultSet r = s.executeQuery("SELECT MAX(\"sequence_number\") FROM \"event_journal\"")) {
      r.next();
      return r.getLong(1);
    }
  }

  private void loseJournalEventsAfter(long sequenceNumber) throws SQLException {
    try (Connection c = DriverManager.getConnection(journalUrl, "sa", "");
        Statement s = c.createStatement()) {
      int lost = s.executeUpdate("DELETE FROM \"event_journal\" WHERE \"sequence_number\" > " + sequenceNumber);
      s.executeUpdate("DELETE FROM \"snapshot\" WHERE \"sequence_number\" > " + sequenceNumber);
      assertTrue(lost > 0, "the journal lost the events of stream b");
    }
  }
}
