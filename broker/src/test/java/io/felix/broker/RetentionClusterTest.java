package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.OffsetOutOfRangeException;
import io.felix.client.OffsetReset;
import io.felix.protocol.client.Acks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in one JVM, one shard led by broker 0 and replicated to 1 and 2, a stream with 1 KiB segments and a
 * 4 KiB size limit, the cleaner running every 100 ms. Broker 2 is stopped after the first records, misses enough
 * for the leader's retention to delete everything it would fetch next, and comes back: it must drop its log and copy
 * from the leader's start. Consumers fetching below the start get OFFSET_OUT_OF_RANGE naming it, and reset.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RetentionClusterTest {
  private static final String STREAM = "kept-small";
  private static final ShardId SHARD = new ShardId(STREAM, 0);
  private static final StreamConfig CONFIG = new StreamConfig(null, 4096L, 1024L);

  @Test
  void aFollowerBehindTheLeadersStartCopiesFromItAndConsumersBelowItAreToldWhereItIs(@TempDir Path dir)
      throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 3, "felix.log.retention-check-interval = 100 ms")) {
      brokers.apply(table(brokers));
      TestBrokers.await("broker 0 leads " + SHARD + " and is settled", Duration.ofSeconds(20), () -> {
        ReplicaStatus leader = brokers.describe(0, SHARD);
        return leader.role() == ReplicaRole.LEADER && !leader.recovering();
      });

      Map<Long, String> produced = new TreeMap<>();
      try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0))
          .acks(Acks.QUORUM).linger(Duration.ofMillis(1)).build())) {
        produce(client, 0, 20, produced);
        TestBrokers.await("broker 2 holds the first 20 records", Duration.ofSeconds(10),
            () -> brokers.describe(2, SHARD).logEndOffset() >= 20);
        long followerEnd = brokers.describe(2, SHARD).logEndOffset();
        brokers.stop(2);

        produce(client, 20, 200, produced); // ~100-byte records: about 30 KiB in 1 KiB segments
        // The cleaner trails the producer by a pass or two (one every 100 ms), so the start still moves for a moment
        // after the last record: wait until it has moved past broker 2's end and then stood still for 5 passes, so
        // the reads below (an OFFSET_OUT_OF_RANGE naming the start, then a reset to it) see one start.
        TestBrokers.await("the leader's retention moves its start past broker 2's end and settles",
            Duration.ofSeconds(20), () -> {
              long before = brokers.describe(0, SHARD).logStartOffset();
              try {
                Thread.sleep(500);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
              return before > followerEnd && brokers.describe(0, SHARD).logStartOffset() == before;
            });
        ReplicaStatus leader = brokers.describe(0, SHARD);
        long start = leader.logStartOffset();
        assertTrue(leader.logEndOffset() - start < 4096 / 50, "the size limit holds: " + leader);

        // A fetch below the start: OFFSET_OUT_OF_RANGE with the start (no reset), or reset to earliest or latest.
        ExecutionException below = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
            () -> client.fetch(STREAM, 0, 0, 1 << 20, 0).get(10, TimeUnit.SECONDS));
        OffsetOutOfRangeException range = assertInstanceOf(OffsetOutOfRangeException.class,
            FelixException.from(below));
        long startNow = brokers.describe(0, SHARD).logStartOffset();
        assertTrue(range.logStartOffset() >= start && range.logStartOffset() <= startNow, range.getMessage());
        assertEquals(leader.logEndOffset(), range.commitOffset());
        FetchResult earliest = client.fetch(STREAM, 0, 0, 1 << 20, 0, OffsetReset.EARLIEST).get(10, TimeUnit.SECONDS);
        assertEquals(range.logStartOffset(), earliest.records().get(0).offset());
        assertValuesMatch(produced, earliest.records());
        FetchResult latest = client.fetch(STREAM, 0, 0, 1 << 20, 0, OffsetReset.LATEST).get(10, TimeUnit.SECONDS);
        assertEquals(List.of(), latest.records());
        assertEquals(leader.logEndOffset(), latest.nextOffset());

        brokers.start(2);
        brokers.apply(table(brokers)); // with broker 2's new endpoints
        TestBrokers.await("broker 2 has copied the leader's log from its start", Duration.ofSeconds(20), () -> {
          ReplicaStatus follower = brokers.describe(2, SHARD);
          return follower.logEndOffset() == leader.logEndOffset() && follower.commitOffset() == leader.logEndOffset();
        });
        ReplicaStatus follower = brokers.describe(2, SHARD);
        assertTrue(follower.logStartOffset() > followerEnd, "broker 2 dropped its old log: " + follower);
        assertEquals(leader.lastEpoch(), follower.lastEpoch());
      }
      // Read broker 2's own replica (plain mode serves a fetch from the connected broker's replica).
      try (FelixClient plain = new FelixClient(ClientSettings.builder(brokers.clientAddress(2))
          .mode(ClientMode.PLAIN).build())) {
        long from = brokers.describe(2, SHARD).logStartOffset();
        long end = brokers.describe(0, SHARD).logEndOffset();
        List<FetchedRecord> read = new ArrayList<>();
        long next = from;
        while (next < end) {
          FetchResult r = plain.fetch(STREAM, 0, next, 1 << 20, 0).get(10, TimeUnit.SECONDS);
          read.addAll(r.records());
          next = r.nextOffset();
        }
        assertEquals(from, read.get(0).offset());
        assertEquals(end - from, read.size());
        assertValuesMatch(produced, read);
      }
    }
  }

  /** The next table, with the stream's own settings and every broker's current endpoints. */
  private static AssignmentTable table(TestBrokers brokers) {
    AssignmentTable base = brokers.table(Map.of(STREAM, 1),
        List.of(new ShardAssignment(SHARD, List.of(0, 1, 2), List.of(), 0, 1)));
    return new AssignmentTable(base.version(), base.brokers(), base.streams(), base.shards(), Map.of(STREAM, CONFIG));
  }

  private static void produce(FelixClient client, int from, int to, Map<Long, String> produced) throws Exception {
    List<CompletableFuture<io.felix.client.RecordMetadata>> acks = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = from; i < to; i++) {
      String value = "record-" + i + "-" + "x".repeat(90);
      values.add(value);
      acks.add(client.produce(STREAM, 0, new byte[0], value.getBytes(StandardCharsets.UTF_8), List.of()));
      client.flush(); // one record per batch, so segments hold few records and roll often
      acks.get(acks.size() - 1).get(10, TimeUnit.SECONDS);
    }
    for (int i = 0; i < acks.size(); i++) {
      produced.put(acks.get(i).get().offset(), values.get(i));
    }
  }

  private static void assertValuesMatch(Map<Long, String> produced, List<FetchedRecord> records) {
    for (FetchedRecord r : records) {
      assertArrayEquals(produced.get(r.offset()).getBytes(StandardCharsets.UTF_8), r.value(), "offset " + r.offset());
    }
  }
}
