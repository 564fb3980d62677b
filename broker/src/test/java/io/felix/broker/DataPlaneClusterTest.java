package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.RecordMetadata;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three brokers in one JVM, replication factor 3, leaders spread over the brokers. Produces through the real
 * client in both modes and reads everything back; checks the client protocol's errors on raw sockets.
 */
@Tag("cluster")
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DataPlaneClusterTest {
  private static final int RECORDS = 100_000;
  private static final int SHARDS = 3;

  private static final List<String> STREAMS =
      List.of("cluster-mode", "plain-mode", "protocol", "epochs", "resilience", "retired");

  private TestBrokers brokers;

  @BeforeAll
  void startCluster(@TempDir Path dir) {
    brokers = new TestBrokers(dir, 3, "");
    brokers.apply(tableOf(STREAMS));
    for (int b = 0; b < 3; b++) {
      int broker = b;
      TestBrokers.await("broker " + b + " hosts its replicas", Duration.ofSeconds(20), () ->
          brokers.describe(broker, new ShardId("epochs", 2)).hosted());
    }
    // A new replica opens without state, as a wiped one would, and leads provisionally (taking no appends) until a
    // follower agrees with its empty log: the tests' raw clients do not retry, so every leader is settled first.
    for (String stream : STREAMS) {
      for (int s = 0; s < SHARDS; s++) {
        ShardId id = new ShardId(stream, s);
        TestBrokers.await(id + " led and settled", Duration.ofSeconds(20), () -> {
          ReplicaStatus leader = brokers.describe(id.shard() % 3, id);
          return leader.role() == ReplicaRole.LEADER && !leader.recovering();
        });
      }
    }
  }

  @AfterAll
  void stopCluster() {
    brokers.close();
  }

  /** Every stream named with SHARDS shards, replicas 0, 1, 2, shard s led by broker s % 3 at epoch 1. */
  private io.felix.broker.assignment.AssignmentTable tableOf(List<String> streams) {
    List<ShardAssignment> shards = new ArrayList<>();
    Map<String, Integer> counts = new java.util.HashMap<>();
    for (String stream : streams) {
      counts.put(stream, SHARDS);
      for (int s = 0; s < SHARDS; s++) {
        shards.add(new ShardAssignment(new ShardId(stream, s), List.of(0, 1, 2), List.of(), s % 3, 1));
      }
    }
    // A staged copy: broker 2 learns the log of a shard replicated by 0 and 1.
    counts.put("learners", 1);
    shards.add(new ShardAssignment(new ShardId("learners", 0), List.of(0, 1), List.of(2), 0, 1));
    return brokers.table(counts, shards);
  }

  @Test
  void aStreamDroppedFromTheTableIsRetiredAndItsDataDeletedOnEveryBroker() throws Exception {
    ShardId gone = new ShardId("retired", 1);
    try (RawClient raw = new RawClient(brokers.endpoint(1).host(), brokers.endpoint(1).clientPort())) {
      assertEquals(ErrorCode.NONE, raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder()
          .setStream("retired").setShard(1).setRecords(oneRecord("soon gone")))).getError().getCode());
    }
    for (int b = 0; b < 3; b++) {
      assertTrue(java.nio.file.Files.isDirectory(brokers.dataDir(b).resolve("retired-1")));
    }
    brokers.apply(tableOf(STREAMS.stream().filter(s -> !s.equals("retired")).toList()));
    for (int b = 0; b < 3; b++) {
      int broker = b;
      TestBrokers.await("broker " + b + " deleted retired-1", Duration.ofSeconds(20),
          () -> !java.nio.file.Files.exists(brokers.dataDir(broker).resolve("retired-1")));
      assertEquals(ReplicaStatus.notHosted(gone, b), brokers.describe(b, gone));
    }
    try (RawClient raw = new RawClient(brokers.endpoint(1).host(), brokers.endpoint(1).clientPort())) {
      assertEquals(ErrorCode.UNKNOWN_STREAM, raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder()
          .setStream("retired").setShard(1).setRecords(oneRecord("too late")))).getError().getCode());
    }
  }

  @Test
  void replicationSurvivesBrokerToBrokerConnectionsAbortedMidProduction() throws Exception {
    int records = 30_000;
    List<List<byte[]>> expected = new ArrayList<>();
    for (int s = 0; s < SHARDS; s++) {
      expected.add(new ArrayList<>());
    }
    try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0))
        .linger(Duration.ofMillis(2)).batchSizeBytes(16 * 1024).build())) {
      List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        if (i % 5_000 == 2_500) {
          brokers.plane(i / 5_000 % 3).abortReplicationConnections("test: connection loss mid-production");
        }
        byte[] value = value("resilience", i);
        expected.get(i % SHARDS).add(value);
        acks.add(client.produce("resilience", i % SHARDS, null, value, List.of()));
        if (i % 1_000 == 999) {
          // Spread production over the aborts: at most about 1,000 records ahead of the acknowledgements.
          acks.get(i - 999).get(60, TimeUnit.SECONDS);
        }
      }
      CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
      for (int s = 0; s < SHARDS; s++) {
        List<FetchedRecord> read = readAll(client, "resilience", s, expected.get(s).size());
        assertEquals(expected.get(s).size(), read.size());
        for (int j = 0; j < read.size(); j++) {
          assertArrayEquals(expected.get(s).get(j), read.get(j).value(), "shard " + s + " record " + j);
        }
      }
    }
    for (int s = 0; s < SHARDS; s++) {
      assertFollowersHoldTheLeadersLogUpToTheCommitOffset(new ShardId("resilience", s));
    }
  }

  @Test
  void hundredThousandRecordsInClusterModeAreReadBackCompleteInOrderByteForByte() throws Exception {
    long[] before = forwardedBatchesPerBroker(); // other tests of this class forward (plain mode)
    produceAndReadBack("cluster-mode", ClientMode.CLUSTER, brokers.clientAddress(1));
    assertArrayEquals(before, forwardedBatchesPerBroker(), "cluster mode sends every batch to its leader");
    for (int s = 0; s < SHARDS; s++) {
      assertFollowersHoldTheLeadersLogUpToTheCommitOffset(new ShardId("cluster-mode", s));
    }
  }

  @Test
  void hundredThousandRecordsInPlainModeAreForwardedAndReadBackCompleteInOrder() throws Exception {
    long[] batchesBefore = forwardedBatchesPerBroker(); // other tests of this class forward too
    long bytesBefore = brokers.plane(0).forwardedBytes();
    produceAndReadBack("plain-mode", ClientMode.PLAIN, brokers.clientAddress(0));
    long[] batchesAfter = forwardedBatchesPerBroker();
    assertTrue(batchesAfter[0] > batchesBefore[0], "broker 0 forwarded the batches of shards 1 and 2");
    assertEquals(batchesBefore[1], batchesAfter[1], "broker 1 got no batch from the client, so forwarded none");
    assertEquals(batchesBefore[2], batchesAfter[2], "broker 2 got no batch from the client, so forwarded none");
    long forwardedBytes = brokers.plane(0).forwardedBytes() - bytesBefore;
    assertTrue(forwardedBytes > (long) RECORDS * 2 / 3 * 64,
        "forwarded bytes cover the 64-byte values of two thirds of the records: " + forwardedBytes);
  }

  private long[] forwardedBatchesPerBroker() {
    return new long[] {brokers.plane(0).forwardedBatches(), brokers.plane(1).forwardedBatches(),
        brokers.plane(2).forwardedBatches()};
  }

  private void produceAndReadBack(String stream, ClientMode mode, String bootstrap) throws Exception {
    List<List<byte[]>> expected = new ArrayList<>();
    for (int s = 0; s < SHARDS; s++) {
      expected.add(new ArrayList<>());
    }
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).mode(mode).acks(Acks.QUORUM)
        .linger(Duration.ofMillis(2)).batchSizeBytes(64 * 1024).build())) {
      List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>(RECORDS);
      for (int i = 0; i < RECORDS; i++) {
        int shard = i % SHARDS;
        byte[] value = value(stream, i);
        expected.get(shard).add(value);
        acks.add(client.produce(stream, shard, ("k" + i).getBytes(StandardCharsets.UTF_8), value, List.of()));
      }
      CompletableFuture.allOf(acks.toArray(new CompletableFuture<?>[0])).get(120, TimeUnit.SECONDS);
      for (int i = 0; i < RECORDS; i++) {
        RecordMetadata m = acks.get(i).get();
        assertEquals(i % SHARDS, m.shard());
        assertEquals(i / SHARDS, m.offset(), "record " + i + " has the next offset of its shard");
      }
      for (int s = 0; s < SHARDS; s++) {
        List<FetchedRecord> read = readAll(client, stream, s, expected.get(s).size());
        assertEquals(expected.get(s).size(), read.size(), "records read back from shard " + s);
        for (int j = 0; j < read.size(); j++) {
          assertEquals(j, read.get(j).offset());
          assertArrayEquals(expected.get(s).get(j), read.get(j).value(), "shard " + s + " offset " + j);
        }
      }
    }
  }

  private static byte[] value(String stream, int i) {
    StringBuilder b = new StringBuilder(stream).append('-').append(i).append(':');
    while (b.length() < 64) {
      b.append((char) ('a' + (i + b.length()) % 26));
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static List<FetchedRecord> readAll(FelixClient client, String stream, int shard, int count)
      throws Exception {
    List<FetchedRecord> out = new ArrayList<>();
    long offset = 0;
    while (out.size() < count) {
      FetchResult r = client.fetch(stream, shard, offset, 1024 * 1024, 500).get(30, TimeUnit.SECONDS);
      if (r.records().isEmpty()) {
        break;
      }
      out.addAll(r.records());
      offset = r.nextOffset();
    }
    return out;
  }

  /** Each follower serves, from its own log, the same batches as the leader below the commit offset. */
  private void assertFollowersHoldTheLeadersLogUpToTheCommitOffset(ShardId id) throws Exception {
    int leader = id.shard() % 3;
    ReplicaStatus leaderStatus = brokers.describe(leader, id);
    for (int b = 0; b < 3; b++) {
      int broker = b;
      TestBrokers.await("broker " + b + " knows commit offset " + leaderStatus.commitOffset() + " of " + id,
          Duration.ofSeconds(20), () -> brokers.describe(broker, id).commitOffset() >= leaderStatus.commitOffset());
    }
    List<RecordBatch> leaderBatches = committedBatches(leader, id, leaderStatus.commitOffset());
    assertEquals(leaderStatus.commitOffset(), leaderBatches.stream().mapToLong(RecordBatch::getRecordCount).sum());
    for (int b = 0; b < 3; b++) {
      if (b != leader) {
        assertEquals(leaderBatches, committedBatches(b, id, leaderStatus.commitOffset()),
            "broker " + b + "'s log of " + id + " equals the leader's up to the commit offset");
      }
    }
  }

  private List<RecordBatch> committedBatches(int broker, ShardId id, long upTo) throws Exception {
    List<RecordBatch> batches = new ArrayList<>();
    try (RawClient raw = new RawClient(brokers.endpoint(broker).host(), brokers.endpoint(broker).clientPort())) {
      long offset = 0;
      while (offset < upTo) {
        Response r = raw.call(Request.newBuilder().setFetch(FetchRequest.newBuilder().setStream(id.stream())
            .setShard(id.shard()).setOffset(offset).setMaxBytes(1 << 20).setForwardIfNotLeader(true)));
        assertEquals(ErrorCode.NONE, r.getError().getCode(), r.getError().getMessage());
        for (RecordBatch batch : r.getFetch().getBatchesList()) {
          if (batch.getBaseOffset() < upTo) {
            batches.add(batch);
          }
          offset = batch.getBaseOffset() + batch.getRecordCount();
        }
      }
    }
    return batches;
  }

  @Test
  void produceToANonLeaderInClusterModeGetsNotLeaderNamingTheLeader() throws Exception {
    try (RawClient raw = new RawClient(brokers.endpoint(2).host(), brokers.endpoint(2).clientPort())) {
      Response r = raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("protocol")
          .setShard(1).setRecords(oneRecord("misdirected"))));
      assertEquals(ErrorCode.NOT_LEADER, r.getError().getCode());
      assertEquals(1, r.getError().getLeaderId());
      assertEquals(brokers.clientAddress(1), r.getError().getLeaderAddress());
      assertEquals(0, brokers.describe(2, new ShardId("protocol", 1)).logEndOffset(), "nothing appended");
    }
  }

  @Test
  void aFetchAtTheCommitOffsetWaitsForTheNextCommittedRecordThenAnswersAtOnce() throws Exception {
    try (RawClient consumer = new RawClient(brokers.endpoint(2).host(), brokers.endpoint(2).clientPort());
        RawClient producer = new RawClient(brokers.endpoint(2).host(), brokers.endpoint(2).clientPort())) {
      Response first = producer.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("protocol")
          .setShard(2).setRecords(oneRecord("first"))));
      long next = first.getProduce().getBaseOffset() + 1;
      long started = System.nanoTime();
      Response empty = consumer.call(Request.newBuilder().setFetch(FetchRequest.newBuilder().setStream("protocol")
          .setShard(2).setOffset(next).setMaxBytes(4096).setMaxWaitMs(300)));
      long waitedMs = (System.nanoTime() - started) / 1_000_000;
      assertEquals(0, empty.getFetch().getBatchesCount());
      assertTrue(waitedMs >= 290, "an empty fetch waits max_wait_ms, waited " + waitedMs);

      // A long fetch at the commit offset, then a marker fetch that does not wait, on the same connection: the
      // listener hands both to the shard's replica in that order, so the marker answered first shows the long
      // fetch reached the replica and is held there.
      long parkedId = 1_000;
      long markerId = 1_001;
      consumer.sendFrame(Request.newBuilder().setCorrelationId(parkedId).setFetch(FetchRequest.newBuilder()
          .setStream("protocol").setShard(2).setOffset(next).setMaxBytes(4096).setMaxWaitMs(15_000))
          .build().toByteArray());
      consumer.sendFrame(Request.newBuilder().setCorrelationId(markerId).setFetch(FetchRequest.newBuilder()
          .setStream("protocol").setShard(2).setOffset(next - 1).setMaxBytes(4096).setMaxWaitMs(0))
          .build().toByteArray());
      Response marker = consumer.read();
      assertEquals(markerId, marker.getCorrelationId(), "the fetch at the commit offset waits, the marker does not");
      assertEquals(ErrorCode.NONE, marker.getError().getCode(), marker.getError().toString());

      started = System.nanoTime();
      producer.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("protocol").setShard(2)
          .setRecords(oneRecord("second"))));
      Response woken = consumer.read();
      assertTrue((System.nanoTime() - started) / 1_000_000 < 5_000, "answered as soon as the record committed");
      assertEquals(parkedId, woken.getCorrelationId());
      assertEquals(1, woken.getFetch().getBatchesCount(), "the waiting fetch got the new record");
      assertEquals(next, woken.getFetch().getBatches(0).getBaseOffset());
      assertEquals("second", RecordLists.decode(woken.getFetch().getBatches(0).getRecords()).getRecords(0)
          .getValue().toStringUtf8());
    }
  }

  @Test
  void aLearnerReceivesTheLogButNeverCountsTowardTheQuorum() throws Exception {
    ShardId id = new ShardId("learners", 0); // replicas 0 (leader) and 1, learner 2
    try (RawClient raw = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
      for (int i = 0; i < 10; i++) {
        assertEquals(ErrorCode.NONE, raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder()
            .setStream("learners").setShard(0).setRecords(oneRecord("staged-" + i)))).getError().getCode());
      }
      TestBrokers.await("the learner holds the leader's log", Duration.ofSeconds(20),
          () -> brokers.describe(2, id).logEndOffset() == 10);
      assertEquals(ReplicaRole.LEARNER, brokers.describe(2, id).role());

      assertEquals(ReplicaRole.FENCED, brokers.fence(1, id, 2).role(), "the only other voter stops following epoch 1");
      Response r = raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("learners")
          .setShard(0).setRecords(oneRecord("needs a quorum")).setTimeoutMs(700)));
      assertTrue(r.getError().getCode() == ErrorCode.TIMEOUT || r.getError().getCode() == ErrorCode.NOT_ENOUGH_REPLICAS,
          r.getError().toString());
      TestBrokers.await("the learner stored the record", Duration.ofSeconds(20),
          () -> brokers.describe(2, id).logEndOffset() == 11);
      assertEquals(10, brokers.describe(0, id).commitOffset(), "the learner's copy committed nothing");
    }
  }

  @Test
  void oversizeFrameGetsFrameTooLargeAndClosesOnlyItsConnection() throws Exception {
    try (RawClient bystander = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort());
        RawClient offender = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
      Response ok = bystander.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("protocol")
          .setShard(0).setRecords(oneRecord("before"))));
      assertEquals(ErrorCode.NONE, ok.getError().getCode());
      offender.sendRaw(new byte[] {0x00, (byte) 0x90, 0x00, 0x01}); // 9 MiB + 1 announced; 8 MiB allowed
      Response tooLarge = offender.read();
      assertEquals(ErrorCode.FRAME_TOO_LARGE, tooLarge.getError().getCode());
      assertTrue(tooLarge.getError().getMessage().contains("9437185"), tooLarge.getError().getMessage());
      assertTrue(offender.closedByPeer(), "the offending connection is closed");
      assertBystanderStillServed(bystander, ok.getProduce().getBaseOffset());
    }
  }

  @Test
  void garbageFrameGetsInvalidRequestAndClosesOnlyItsConnection() throws Exception {
    try (RawClient bystander = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort());
        RawClient offender = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
      Response ok = bystander.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("protocol")
          .setShard(0).setRecords(oneRecord("before garbage"))));
      assertEquals(ErrorCode.NONE, ok.getError().getCode());
      offender.sendFrame(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 0x13, 0x37});
      Response invalid = offender.read();
      assertEquals(ErrorCode.INVALID_REQUEST, invalid.getError().getCode());
      assertTrue(offender.closedByPeer(), "the offending connection is closed");
      assertBystanderStillServed(bystander, ok.getProduce().getBaseOffset());
    }
  }

  @Test
  void staleEpochFetchIsRejectedAndANewerEpochStopsTheLeaderTakingAppends() throws Exception {
    ShardId id = new ShardId("epochs", 0); // led by broker 0 at epoch 1
    try (RawClient producer = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort());
        RawReplicationPeer peer = new RawReplicationPeer(brokers.endpoint(0).host(),
            brokers.endpoint(0).replicationPort(), 7)) {
      Response ok = producer.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream("epochs")
          .setShard(0).setRecords(oneRecord("at epoch 1"))));
      assertEquals(ErrorCode.NONE, ok.getError().getCode());

      ReplicaFetchResult stale = peer.fetch(id, 0, 1);
      assertEquals(FetchError.FETCH_EPOCH_MISMATCH, stale.getError(), "a fetch under epoch 0 is refused");
      assertEquals(1, stale.getLeaderEpoch());
      assertTrue(stale.getBatches().isEmpty(), "nothing is shipped under a stale epoch");

      ReplicaFetchResult newer = peer.fetch(id, 5, 2);
      assertEquals(FetchError.FETCH_EPOCH_MISMATCH, newer.getError());
      Response refused = producer.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder()
          .setStream("epochs").setShard(0).setRecords(oneRecord("after epoch 5 was seen"))));
      assertEquals(ErrorCode.NOT_LEADER, refused.getError().getCode(), "a leader that saw epoch 5 takes no appends");
      assertTrue(refused.getError().getNotAppended());
      ReplicaStatus status = brokers.describe(0, id);
      assertEquals(ReplicaRole.FENCED, status.role());
      assertEquals(ok.getProduce().getBaseOffset() + 1, status.logEndOffset(), "the refused batch was not appended");
    }
  }

  private static void assertBystanderStillServed(RawClient bystander, long acknowledged) throws Exception {
    Response metadata = bystander.call(Request.newBuilder().setMetadata(MetadataRequest.newBuilder()));
    assertEquals(ErrorCode.NONE, metadata.getError().getCode());
    Response fetch = bystander.call(Request.newBuilder().setFetch(FetchRequest.newBuilder().setStream("protocol")
        .setShard(0).setOffset(acknowledged).setMaxBytes(4096)));
    assertEquals(acknowledged, fetch.getFetch().getBatches(0).getBaseOffset(), "the acknowledged record is there");
  }

  static ByteString oneRecord(String value) {
    return RecordLists.encode(List.of(Record.newBuilder()
        .setValue(ByteString.copyFromUtf8(value)).setTimestampMs(System.currentTimeMillis()).build()));
  }
}
