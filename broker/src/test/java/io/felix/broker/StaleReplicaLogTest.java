package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream deleted while a broker was down is never retired on that broker: the first table the broker applies
 * after its restart must move that log into quarantine (deleted after felix.broker.quarantine-retention), so that a
 * re-created stream of the same name (again at epoch 1) starts empty. Logs the table has the broker host, as a replica or as a learner, stay with their records.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class StaleReplicaLogTest {
  private static final ShardId KEPT = new ShardId("kept", 0);
  private static final ShardId LEARNED = new ShardId("learned", 0);
  private static final ShardId DROPPED = new ShardId("dropped", 0);

  @TempDir
  Path dir;

  @Test
  void theFirstTableAfterARestartQuarantinesLogsOfShardsItDoesNotHostAndKeepsHostedOnes() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 2, "")) {
      brokers.apply(table(brokers, true, 1));
      TestBrokers.await("both brokers host their replicas", Duration.ofSeconds(20),
          () -> brokers.describe(0, DROPPED).hosted() && brokers.describe(1, LEARNED).hosted());
      produce(brokers, KEPT, 3);
      produce(brokers, LEARNED, 2);
      produce(brokers, DROPPED, 4);
      TestBrokers.await("broker 0 learned " + LEARNED, Duration.ofSeconds(20),
          () -> brokers.describe(0, LEARNED).logEndOffset() == 2);

      // Broker 0 is down while its stream is deleted; the data directory also holds files that are no replica log.
      brokers.stop(0);
      Path data = brokers.dataDir(0);
      assertTrue(Files.isDirectory(data.resolve("dropped-0")));
      Files.writeString(data.resolve("felix-journal.mv.db"), "not a replica log");
      Files.writeString(data.resolve("looks-like-a-log-7"), "a file, not a replica directory");
      brokers.start(0);
      brokers.apply(table(brokers, false, 2));

      TestBrokers.await("broker 0 moved dropped-0 aside", Duration.ofSeconds(20),
          () -> !Files.exists(data.resolve("dropped-0")));
      try (var quarantined = Files.list(data.resolve("quarantine"))) {
        Path moved = quarantined.findFirst().orElseThrow();
        assertTrue(moved.getFileName().toString().matches("dropped-0-[0-9]+"), moved.toString());
        assertTrue(Files.exists(moved.resolve("replica.state")), "kept whole, state and log");
      }
      assertTrue(Files.exists(data.resolve("felix-journal.mv.db")));
      assertTrue(Files.exists(data.resolve("looks-like-a-log-7")));
      TestBrokers.await("broker 0 serves " + KEPT + " again", Duration.ofSeconds(20),
          () -> brokers.describe(0, KEPT).role() == ReplicaRole.LEADER);
      assertEquals(4, brokers.describe(0, KEPT).logEndOffset(), "its 3 records and the marker of epoch 2");
      assertEquals(2, brokers.describe(0, LEARNED).logEndOffset());
      assertEquals(ReplicaStatus.notHosted(DROPPED, 0), brokers.describe(0, DROPPED));
      try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0)).build())) {
        FetchResult kept = client.fetch(KEPT.stream(), 0, 0, 1024 * 1024, 500).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("kept-0", "kept-1", "kept-2"), kept.records().stream()
            .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
      }

      // The stream is created again under the same name: its replica starts from an empty log.
      brokers.apply(table(brokers, true, 3));
      TestBrokers.await("broker 0 hosts the new " + DROPPED, Duration.ofSeconds(20),
          () -> brokers.describe(0, DROPPED).hosted());
      ReplicaStatus recreated = brokers.describe(0, DROPPED);
      assertEquals(0, recreated.logEndOffset());
      assertEquals(-1, recreated.lastEpoch());
      assertFalse(recreated.failed());
    }
  }

  /**
   * Broker 0 hosts {@code kept} (alone) and learns {@code learned} from broker 1; {@code dropped} (on broker 0 alone)
   * exists only when {@code withDropped}. Broker 0's own shards lead at {@code epoch} (a restart needs a new one).
   */
  private static AssignmentTable table(TestBrokers brokers, boolean withDropped, long epoch) {
    List<ShardAssignment> shards = new java.util.ArrayList<>(List.of(
        new ShardAssignment(KEPT, List.of(0), List.of(), 0, epoch),
        new ShardAssignment(LEARNED, List.of(1), List.of(0), 1, 1)));
    Map<String, Integer> streams = new java.util.HashMap<>(Map.of("kept", 1, "learned", 1));
    if (withDropped) {
      shards.add(new ShardAssignment(DROPPED, List.of(0), List.of(), 0, epoch));
      streams.put("dropped", 1);
    }
    return brokers.table(streams, shards);
  }

  private static void produce(TestBrokers brokers, ShardId id, int count) throws Exception {
    try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0)).build())) {
      for (int i = 0; i < count; i++) {
        client.produce(id.stream(), id.shard(), null, (id.stream() + "-" + i).getBytes(StandardCharsets.UTF_8),
            List.of()).get(30, TimeUnit.SECONDS);
      }
    }
  }
}
