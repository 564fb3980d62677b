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
import io.felix.protocol.client.Acks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a replica promised and which stream it belongs to survive its restart ({@code replica.state}): a follower
 * fenced at a newer epoch does not go back to the old leader after a restart, and a stream deleted and created
 * again under the same name while a broker was down is never mixed with the old stream's log there. Tables are
 * applied by hand, the way the control plane would send them.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class DurableReplicaStateClusterTest {

  @TempDir
  Path dir;

  @Test
  void aFollowerFencedAtANewerEpochRefusesTheOldLeaderAfterARestart() throws Exception {
    ShardId shard = new ShardId("promise", 0);
    UUID incarnation = UUID.randomUUID();
    try (TestBrokers brokers = new TestBrokers(dir, 3, "")) {
      brokers.apply(table(brokers, shard, incarnation, List.of(0, 1, 2), 0, 1));
      produce(brokers.clientAddress(0), shard, "before", 100, Acks.ALL);
      TestBrokers.await("broker 1 holds the 100 records", Duration.ofSeconds(20),
          () -> brokers.describe(1, shard).logEndOffset() == 100);

      // A failover round fences broker 1 at epoch 2 (and is then lost with the singleton, say).
      ReplicaStatus fenced = brokers.fence(1, shard, 2);
      assertEquals(ReplicaRole.FENCED, fenced.role());
      assertEquals(2, fenced.promisedEpoch());

      brokers.stop(1);
      brokers.start(1);
      // A stale table still has broker 0 lead at epoch 1.
      brokers.apply(table(brokers, shard, incarnation, List.of(0, 1, 2), 0, 1));
      TestBrokers.await("broker 1 hosts its replica again", Duration.ofSeconds(20),
          () -> brokers.describe(1, shard).hosted());

      // The old leader still takes writes (acks=leader), and broker 2, never fenced, still copies them.
      produce(brokers.clientAddress(0), shard, "after", 50, Acks.LEADER);
      TestBrokers.await("broker 2 copied the new records", Duration.ofSeconds(20),
          () -> brokers.describe(2, shard).logEndOffset() == 150);
      Thread.sleep(1000); // many fetch rounds: a restarted broker 1 that forgot its fence would have copied them
      ReplicaStatus restarted = brokers.describe(1, shard);
      assertEquals(ReplicaRole.FENCED, restarted.role(), restarted.toString());
      assertEquals(100, restarted.logEndOffset(), "nothing copied from the fenced leader at epoch 1");
      assertEquals(2, restarted.promisedEpoch(), "the fence outlived the restart");
    }
  }

  @Test
  void aStreamCreatedAgainUnderTheSameNameWhileABrokerWasDownStartsEmptyThereToo() throws Exception {
    ShardId shard = new ShardId("reborn", 0);
    UUID old = UUID.randomUUID();
    UUID reborn = UUID.randomUUID();
    try (TestBrokers brokers = new TestBrokers(dir, 3, "")) {
      brokers.apply(table(brokers, shard, old, List.of(0, 1, 2), 0, 1));
      // One record per batch, in both incarnations: a log end of the new stream is then a batch boundary of the old,
      // so a replica that took the old log for the new one could keep old records at the new stream's offsets.
      produceEach(brokers.clientAddress(0), shard, "old", 30, Acks.ALL);
      TestBrokers.await("broker 1 holds the old stream's records", Duration.ofSeconds(20),
          () -> brokers.describe(1, shard).logEndOffset() == 30);

      // Broker 1 is down while the stream is deleted and created again; the new one starts at epoch 1 too.
      brokers.stop(1);
      brokers.apply(brokers.table(Map.of(), List.of()));
      // The retired replica deletes its log after the directory forgot it; the re-creation comes after that.
      TestBrokers.await("broker 0 retired the old stream and deleted its log", Duration.ofSeconds(20),
          () -> !brokers.describe(0, shard).hosted() && !Files.exists(brokers.dataDir(0).resolve("reborn-0"))
              && !Files.exists(brokers.dataDir(2).resolve("reborn-0")));
      brokers.apply(table(brokers, shard, reborn, List.of(0, 1, 2), 0, 1));
      TestBrokers.await("broker 0 leads the new stream", Duration.ofSeconds(20),
          () -> brokers.describe(0, shard).role() == ReplicaRole.LEADER);
      assertEquals(0, brokers.describe(0, shard).logEndOffset(), "the new stream starts empty");
      produceEach(brokers.clientAddress(0), shard, "new", 5, Acks.ALL);

      brokers.start(1);
      brokers.apply(table(brokers, shard, reborn, List.of(0, 1, 2), 0, 1));
      TestBrokers.await("broker 1 copied the new stream", Duration.ofSeconds(20), () -> {
        ReplicaStatus s = brokers.describe(1, shard);
        return s.hosted() && s.logEndOffset() == 5 && !s.recovering();
      });
      try (var quarantined = Files.list(brokers.dataDir(1).resolve("quarantine"))) {
        List<Path> moved = quarantined.toList();
        assertEquals(1, moved.size(), moved.toString());
        assertTrue(moved.get(0).getFileName().toString().matches("reborn-0-[0-9]+"), moved.toString());
      }

      // Broker 1 leads the new stream: what it serves is the new stream's, and only that.
      brokers.apply(table(brokers, shard, reborn, List.of(0, 1, 2), 1, 2));
      TestBrokers.await("broker 1 leads at epoch 2", Duration.ofSeconds(20),
          () -> brokers.describe(1, shard).role() == ReplicaRole.LEADER);
      assertEquals(List.of("new-0", "new-1", "new-2", "new-3", "new-4"), readAll(brokers.clientAddress(1), shard));
      assertFalse(brokers.describe(1, shard).failed());
    }
  }

  private static AssignmentTable table(TestBrokers brokers, ShardId shard, UUID incarnation, List<Integer> replicas,
      int leader, long epoch) {
    return brokers.table(Map.of(shard.stream(), 1),
        List.of(new ShardAssignment(shard, replicas, List.of(), leader, epoch, incarnation)));
  }

  private static void produce(String bootstrap, ShardId shard, String prefix, int count, Acks acks) throws Exception {
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).linger(Duration.ofMillis(2))
        .acks(acks).build())) {
      List<CompletableFuture<?>> answers = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        answers.add(client.produce(shard.stream(), shard.shard(), null,
            (prefix + "-" + i).getBytes(StandardCharsets.UTF_8), List.of()));
      }
      CompletableFuture.allOf(answers.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    }
  }

  /** Each record alone in its batch: the next is sent once the previous one is answered. */
  private static void produceEach(String bootstrap, ShardId shard, String prefix, int count, Acks acks)
      throws Exception {
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).acks(acks).build())) {
      for (int i = 0; i < count; i++) {
        client.produce(shard.stream(), shard.shard(), null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8),
            List.of()).get(30, TimeUnit.SECONDS);
      }
    }
  }

  private static List<String> readAll(String bootstrap, ShardId shard) throws Exception {
    List<String> values = new ArrayList<>();
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).build())) {
      long offset = 0;
      while (true) {
        FetchResult r = client.fetch(shard.stream(), shard.shard(), offset, 1 << 20, 200).get(30, TimeUnit.SECONDS);
        if (r.records().isEmpty()) {
          return values;
        }
        r.records().forEach(rec -> values.add(new String(rec.value(), StandardCharsets.UTF_8)));
        offset = r.nextOffset();
      }
    }
  }
}
