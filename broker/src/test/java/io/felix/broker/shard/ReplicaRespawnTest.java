package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.TestBrokers;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica actor that stops without being retired (a failure) is started again by its directory while the held
 * table still has the broker host the shard: re-pushes of that same table are ignored, so nothing else would.
 */
class ReplicaRespawnTest {
  private static final ShardId SHARD = new ShardId("respawn", 0);

  @TempDir
  Path dir;

  @Test
  void aFollowerReplicaThatStoppedUnretiredIsStartedAgainAndCatchesUpWithTheLeader() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 2, "")) {
      brokers.apply(brokers.table(Map.of(SHARD.stream(), 1),
          List.of(new ShardAssignment(SHARD, List.of(0, 1), List.of(), 0, 1))));
      TestBrokers.await("both brokers host " + SHARD, Duration.ofSeconds(20),
          () -> brokers.describe(0, SHARD).hosted() && brokers.describe(1, SHARD).hosted());
      try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0)).build())) {
        produce(client, "before-", 3);
        TestBrokers.await("broker 1 replicated 3 records", Duration.ofSeconds(20),
            () -> brokers.describe(1, SHARD).logEndOffset() == 3);

        brokers.plane(1).directory().tell(new ReplicaDirectory.StopReplicaUnretired(SHARD));
        TestBrokers.await("broker 1 serves " + SHARD + " again", Duration.ofSeconds(20), () -> {
          try {
            ReplicaStatus s = brokers.describe(1, SHARD);
            return s.hosted() && s.role() == ReplicaRole.FOLLOWER && s.logEndOffset() == 3;
          } catch (IllegalStateException askedTheStoppingReplica) {
            return false;
          }
        });

        // It replicates again: records produced now reach it, and the leader serves them all.
        produce(client, "after-", 2);
        TestBrokers.await("broker 1 replicated 5 records", Duration.ofSeconds(20),
            () -> brokers.describe(1, SHARD).logEndOffset() == 5);
        FetchResult read = client.fetch(SHARD.stream(), 0, 0, 1024 * 1024, 500).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("before-0", "before-1", "before-2", "after-0", "after-1"), read.records().stream()
            .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
      }
    }
  }

  private static void produce(FelixClient client, String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      client.produce(SHARD.stream(), 0, null, (prefix + i).getBytes(StandardCharsets.UTF_8), List.of())
          .get(30, TimeUnit.SECONDS);
    }
  }
}
