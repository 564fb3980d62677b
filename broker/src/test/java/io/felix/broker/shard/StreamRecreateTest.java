package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.TestBrokers;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.LogQuarantine;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream deleted and created again at once: the table without the stream and the table with its new incarnation
 * reach the brokers back to back. The retired replica's log is set aside (a table without the stream may be wrong,
 * after a journal lost its tail), and the new replica must start only once that is done (the same directory):
 * started beside it, it would open the old incarnation's files or have its own moved away.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StreamRecreateTest {
  private static final ShardId SHARD = new ShardId("again", 0);

  @TempDir
  Path dir;

  @Test
  void aStreamCreatedAgainAtOnceStartsWithAnEmptyLogAndTheOldOneSetAside() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 2, "")) {
      UUID old = UUID.randomUUID();
      brokers.apply(brokers.table(Map.of(SHARD.stream(), 1), List.of(assignment(old))));
      TestBrokers.await("both brokers host " + SHARD, Duration.ofSeconds(20),
          () -> brokers.describe(0, SHARD).hosted() && brokers.describe(1, SHARD).hosted());
      try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0)).build())) {
        produce(client, "old-", 50);
        TestBrokers.await("broker 1 replicated the old records", Duration.ofSeconds(20),
            () -> brokers.describe(1, SHARD).logEndOffset() == 50);

        brokers.apply(brokers.table(Map.of(), List.of()));
        brokers.apply(brokers.table(Map.of(SHARD.stream(), 1), List.of(assignment(UUID.randomUUID()))));

        TestBrokers.await("both brokers host the new " + SHARD + " with an empty log", Duration.ofSeconds(20), () -> {
          ReplicaStatus leader = brokers.describe(0, SHARD);
          ReplicaStatus follower = brokers.describe(1, SHARD);
          return leader.hosted() && follower.hosted() && !leader.failed() && !follower.failed()
              && leader.role() == ReplicaRole.LEADER && leader.logEndOffset() == 0 && follower.logEndOffset() == 0;
        });
        for (int broker = 0; broker < 2; broker++) {
          List<Path> setAside = quarantined(brokers.dataDir(broker));
          assertEquals(1, setAside.size(), "broker " + broker + " set the old log aside: " + setAside);
          assertEquals(old, new ReplicaMetadata(setAside.get(0)).read().orElseThrow().incarnation(),
              "broker " + broker + " kept the old incarnation's log");
        }
        produce(client, "new-", 2);
        FetchResult read = client.fetch(SHARD.stream(), 0, 0, 1024 * 1024, 500).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("new-0", "new-1"), read.records().stream()
            .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
      }
    }
  }

  private static ShardAssignment assignment(UUID incarnation) {
    return new ShardAssignment(SHARD, List.of(0, 1), List.of(), 0, 1, incarnation);
  }

  private static List<Path> quarantined(Path dataDir) throws Exception {
    Path quarantine = dataDir.resolve(LogQuarantine.DIRECTORY);
    if (!Files.isDirectory(quarantine)) {
      return List.of();
    }
    try (Stream<Path> entries = Files.list(quarantine)) {
      return entries.toList();
    }
  }

  private static void produce(FelixClient client, String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      client.produce(SHARD.stream(), 0, null, (prefix + i).getBytes(StandardCharsets.UTF_8), List.of())
          .get(30, TimeUnit.SECONDS);
    }
  }
}
