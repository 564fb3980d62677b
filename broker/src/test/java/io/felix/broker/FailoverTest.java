package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogRead;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.RecordMetadata;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover the way the control plane drives it: fence a majority of the replica set at a new epoch, promote the
 * replica with the greatest (last epoch, log end) among those that answered, and
 * bring the old leader back. No acknowledged record may be lost, and nothing unacknowledged may survive on the old
 * leader.
 */
class FailoverTest {
  private static final ShardId SHARD = new ShardId("failover", 0);
  private static final List<Integer> REPLICAS = List.of(0, 1, 2);

  @TempDir
  Path dir;

  @Test
  void quorumSurvivesAFollowerStopAndPromotionLosesNoAcknowledgedRecordWhileTheOldLeaderTruncatesItsSuffix()
      throws Exception {
    List<byte[]> acknowledged = new ArrayList<>();
    long commitOffset;
    try (TestBrokers brokers = new TestBrokers(dir, 3, "felix.replication.isr-max-lag-time = 1 s\n")) {
      brokers.apply(table(brokers, 0, 1));
      produce(brokers.clientAddress(0), "first", 2000, acknowledged, Acks.QUORUM);

      // One follower down: quorum (2 of 3) still acknowledges, and `all` does too once the stopped follower has
      // left the in-sync set (isr-max-lag-time, 1 s here): it waits for in-sync replicas only.
      brokers.stop(2);
      produce(brokers.clientAddress(0), "one-follower-down", 1000, acknowledged, Acks.QUORUM);
      long allStarted = System.nanoTime();
      produce(brokers.clientAddress(0), "acks-all", 10, acknowledged, Acks.ALL);
      assertTrue(System.nanoTime() - allStarted < TimeUnit.SECONDS.toNanos(8), "acks=all did not wait for the stopped"
          + " follower beyond the in-sync lag bound");

      // The control plane starts a failover: broker 1 is fenced at epoch 2, so the leader can no longer reach a
      // quorum. What it appends now is never acknowledged.
      assertTrue(Set.of(ReplicaRole.FOLLOWER, ReplicaRole.FENCED).contains(brokers.fence(1, SHARD, 2).role()));
      try (RawClient raw = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
        Response r = raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream(SHARD.stream())
            .setShard(0).setRecords(records("unacknowledged", 50)).setTimeoutMs(1000)));
        assertNotEquals(ErrorCode.NONE, r.getError().getCode(), "a batch without a quorum is never a success");
        assertTrue(r.getError().getCode() == ErrorCode.TIMEOUT
            || r.getError().getCode() == ErrorCode.NOT_ENOUGH_REPLICAS, r.getError().toString());
      }
      assertEquals(3060, brokers.describe(0, SHARD).logEndOffset(), "the old leader holds an unacknowledged suffix");
      try (RawClient raw = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
        Response r = raw.call(Request.newBuilder().setFetch(FetchRequest.newBuilder().setStream(SHARD.stream())
            .setShard(0).setOffset(3010).setMaxBytes(1 << 20).setMaxWaitMs(200)));
        assertEquals(0, r.getFetch().getBatchesCount(), "consumers never see records beyond the commit offset");
        assertEquals(3010, r.getFetch().getCommitOffset());
      }
      brokers.stop(0);

      // Broker 2 comes back (on its old data) and is fenced too: with 1 and 2 a majority has answered.
      brokers.start(2);
      brokers.apply(table(brokers, 0, 1));
      TestBrokers.await("broker 2 hosts the shard", Duration.ofSeconds(20), () -> brokers.describe(2, SHARD).hosted());
      List<ReplicaStatus> answers = List.of(brokers.fence(1, SHARD, 2), brokers.fence(2, SHARD, 2));
      ReplicaStatus chosen = answers.stream().max(Comparator.comparingLong(ReplicaStatus::lastEpoch)
          .thenComparingLong(ReplicaStatus::logEndOffset)).orElseThrow();
      assertEquals(1, chosen.brokerId(), "broker 1 holds every acknowledged record");
      brokers.apply(table(brokers, 1, 2));

      // The new leader's epoch marker (offset 3010) commits on its own; a fetch there finds no record but must
      // point past the marker, or a consumer that reads to the commit offset would ask for the same gap for ever.
      TestBrokers.await("the epoch-2 marker commits", Duration.ofSeconds(20),
          () -> brokers.describe(1, SHARD).commitOffset() == 3011);
      try (RawClient raw = new RawClient(brokers.endpoint(1).host(), brokers.endpoint(1).clientPort())) {
        Response r = raw.call(Request.newBuilder().setFetch(FetchRequest.newBuilder().setStream(SHARD.stream())
            .setShard(0).setOffset(3010).setMaxBytes(1 << 20).setMaxWaitMs(0)));
        assertEquals(0, r.getFetch().getBatchesCount(), "an epoch marker is never sent to consumers");
        assertEquals(3011, r.getFetch().getCommitOffset());
        assertEquals(3011, r.getFetch().getNextOffset(), "the answer steps over the marker");
      }
      produce(brokers.clientAddress(1), "after-failover", 1000, acknowledged, Acks.QUORUM);

      // The old leader returns: it must drop its 50 unacknowledged records and follow.
      brokers.start(0);
      brokers.apply(table(brokers, 1, 2));
      TestBrokers.await("all three replicas hold the same log", Duration.ofSeconds(30), () -> {
        ReplicaStatus leader = brokers.describe(1, SHARD);
        return REPLICAS.stream().allMatch(b -> {
          ReplicaStatus s = brokers.describe(b, SHARD);
          return s.logEndOffset() == leader.logEndOffset() && s.commitOffset() == leader.commitOffset();
        });
      });
      commitOffset = brokers.describe(1, SHARD).commitOffset();
      assertEquals(4011, commitOffset, "4010 acknowledged records and the epoch-2 marker");

      List<FetchedRecord> read = readAll(brokers.clientAddress(1));
      assertEquals(acknowledged.size(), read.size());
      for (int i = 0; i < read.size(); i++) {
        assertArrayEquals(acknowledged.get(i), read.get(i).value(), "acknowledged record " + i);
      }
    }
    byte[] leaderLog = logBytes(1, commitOffset);
    assertArrayEquals(leaderLog, logBytes(0, commitOffset), "the old leader's log equals the new leader's");
    assertArrayEquals(leaderLog, logBytes(2, commitOffset), "the restarted follower's log equals the leader's");

    // Damage inside durable data: the replica must refuse to serve rather than serve bad bytes.
    Path segment;
    try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir.resolve("broker-2").resolve("failover-0"))) {
      segment = files.filter(f -> f.getFileName().toString().endsWith(".log")).findFirst().orElseThrow();
    }
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(segment,
        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      ByteBuffer one = ByteBuffer.allocate(1);
      ch.read(one, 1000);
      one.put(0, (byte) (one.get(0) ^ 0x5a)).rewind();
      ch.write(one, 1000);
    }
    try (TestBrokers again = new TestBrokers(dir, 0, "")) {
      again.start(2);
      again.apply(table(again, 1, 2));
      TestBrokers.await("broker 2 reports its replica", Duration.ofSeconds(20),
          () -> again.describe(2, SHARD).hosted());
      ReplicaStatus failed = again.describe(2, SHARD);
      assertTrue(failed.failed(), "a replica whose durable log is corrupt is marked failed: " + failed);
      assertEquals(ReplicaRole.FAILED, failed.role());
    }
  }

  private static io.felix.broker.assignment.AssignmentTable table(TestBrokers brokers, int leader, long epoch) {
    return brokers.table(Map.of(SHARD.stream(), 1),
        List.of(new ShardAssignment(SHARD, REPLICAS, List.of(), leader, epoch)));
  }

  private static void produce(String bootstrap, String prefix, int count, List<byte[]> acknowledged, Acks acks)
      throws Exception {
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).linger(Duration.ofMillis(2))
        .acks(acks).build())) {
      List<byte[]> values = new ArrayList<>();
      List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        byte[] value = (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
        values.add(value);
        futures.add(client.produce(SHARD.stream(), 0, null, value, List.of()));
      }
      CompletableFuture.allOf(futures.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
      acknowledged.addAll(values);
    }
  }

  private static ByteString records(String prefix, int count) {
    List<Record> list = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      list.add(Record.newBuilder().setValue(ByteString.copyFromUtf8(prefix + "-" + i)).build());
    }
    return RecordLists.encode(list);
  }

  private static List<FetchedRecord> readAll(String bootstrap) throws Exception {
    List<FetchedRecord> out = new ArrayList<>();
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).build())) {
      long offset = 0;
      while (true) {
        FetchResult r = client.fetch(SHARD.stream(), 0, offset, 1 << 20, 200).get(30, TimeUnit.SECONDS);
        if (r.records().isEmpty()) {
          return out;
        }
        out.addAll(r.records());
        offset = r.nextOffset();
      }
    }
  }

  /** The replica's log as stored, every batch below {@code upTo}, read from its files after the broker stopped. */
  private byte[] logBytes(int broker, long upTo) throws Exception {
    LogSettings settings = LogSettings.defaults();
    try (FlushScheduler flusher = FlushScheduler.start(settings, "test-flusher");
        ShardLog log = ShardLog.open(dir.resolve("broker-" + broker).resolve("failover-0"), settings, flusher)) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      long offset = 0;
      while (offset < upTo) {
        LogRead read = log.read(offset, 1 << 20, upTo);
        ByteBuffer b = read.batches();
        byte[] bytes = new byte[b.remaining()];
        b.get(bytes);
        out.write(bytes);
        offset = read.nextOffset();
      }
      return out.toByteArray();
    }
  }
}
