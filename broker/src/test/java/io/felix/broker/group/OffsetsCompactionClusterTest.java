package io.felix.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.GroupConsumer;
import io.felix.client.GroupConsumerOptions;
import io.felix.client.GroupRecord;
import io.felix.protocol.offsets.OffsetValue;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The offsets store is compacted, as Kafka's __consumer_offsets: after many commits of one group its shard holds
 * little more than the newest commit per key, the group resumes at its last commit after a whole-cluster restart,
 * and clients may read the store but not write it.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OffsetsCompactionClusterTest {
  private static final int COMMITS = 300;
  private static final Map<String, Object> SETTINGS = Map.of("felix.groups.offsets-shards", 1,
      "felix.cache.compaction-interval", "500ms", "felix.log.segment-bytes", "8 KiB");
  private static final GroupConsumerOptions OPTIONS = GroupConsumerOptions.DEFAULTS
      .withSession(Duration.ofSeconds(3), Duration.ofMillis(500)).withMaxWait(Duration.ofMillis(200));

  @Test
  void manyCommitsOfOneGroupAreCompactedToTheNewestAndTheGroupResumesThere() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, SETTINGS)) {
      BrokerNode via = cluster.live().get(0);
      cluster.awaitBrokersLive(via, 3);
      assertEquals(201, cluster.post(via, "/v1/streams",
          "{\"name\":\"events\",\"shards\":1,\"replication_factor\":3}").status());
      cluster.awaitReady();
      try (FelixClient client = cluster.client()) {
        produce(client, 0, COMMITS);
        // One member reads every record, then commits its position COMMITS times: a record per commit.
        GroupConsumer member = new GroupConsumer(client, OPTIONS);
        member.subscribe("events", "audit");
        long next = 0;
        while (next < COMMITS) {
          for (GroupRecord r : member.poll(Duration.ofMillis(500))) {
            next = r.offset() + 1;
          }
        }
        for (int commit = 0; commit < COMMITS; commit++) {
          member.commitSync();
        }
        member.close();

        BrokerCluster.await(Duration.ofSeconds(30), "the offsets shard compacted", () -> {
          try {
            return commitsKept(client).size() < COMMITS / 2;
          } catch (Exception notYet) {
            return false;
          }
        });
        List<FetchedRecord> kept = commitsKept(client);
        FetchedRecord newest = kept.get(kept.size() - 1);
        assertEquals(COMMITS, OffsetValue.parseFrom(newest.value()).getOffset(), "the newest commit is kept");
      }

      // A whole-cluster restart: the offsets shard's new leader rebuilds the group's offsets from its log (the
      // compacted one when its leader stays), and the group resumes after its last commit.
      for (BrokerNode broker : cluster.live()) {
        cluster.stop(broker);
      }
      for (int id = 0; id < 3; id++) {
        cluster.add(id, "");
      }
      cluster.awaitUp(3);
      cluster.awaitReady();
      try (FelixClient client = cluster.client()) {
        produce(client, COMMITS, 5);
        GroupConsumer again = new GroupConsumer(client, OPTIONS);
        again.subscribe("events", "audit");
        List<GroupRecord> read = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (read.size() < 5 && System.nanoTime() < deadline) {
          read.addAll(again.poll(Duration.ofMillis(500)));
        }
        again.close();
        // Exactly the five written after the restart (their offsets start past the new leader's epoch marker).
        assertEquals(List.of("v300", "v301", "v302", "v303", "v304"), read.stream()
            .map(r -> new String(r.record().value(), StandardCharsets.UTF_8)).toList());

        // Clients read the store but do not write it.
        FelixException refused = org.junit.jupiter.api.Assertions.assertThrows(FelixException.class, () -> {
          try {
            client.produce(OffsetsStore.STREAM, "k".getBytes(StandardCharsets.UTF_8), new byte[1]).get(10,
                TimeUnit.SECONDS);
          } catch (java.util.concurrent.ExecutionException e) {
            throw FelixException.from(e.getCause());
          }
        });
        assertTrue(refused.getMessage().contains("'__consumer_offsets' is internal: only the brokers write it"),
            refused.getMessage());
      }
    }
  }

  /**
   * The commits the offsets shard holds from its start to its commit offset: its keyed records (compaction leaves an
   * empty placeholder in place of each entry it drops, so offsets never move; load barriers are empty too).
   */
  private static List<FetchedRecord> commitsKept(FelixClient client) throws Exception {
    List<FetchedRecord> records = new ArrayList<>();
    long offset = 0;
    while (true) {
      FetchResult r = client.fetch(OffsetsStore.STREAM, 0, offset, 1 << 20, 0).get(10, TimeUnit.SECONDS);
      r.records().stream().filter(record -> record.key().length > 0).forEach(records::add);
      if (r.nextOffset() <= offset || r.nextOffset() >= r.commitOffset()) {
        return records;
      }
      offset = r.nextOffset();
    }
  }

  private static void produce(FelixClient client, int from, int count) throws Exception {
    List<CompletableFuture<?>> acked = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      acked.add(client.produce("events", ("k" + i).getBytes(StandardCharsets.UTF_8),
          ("v" + i).getBytes(StandardCharsets.UTF_8)));
    }
    CompletableFuture.allOf(acked.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
  }
}
