package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.await;
import static io.felix.broker.shard.ReplicaFixture.fetch;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.StreamConfig;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Response;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A cache shard's leader (broker 1; brokers 2 and 3 follow, their fetches written by the test, time on a manual
 * clock): it answers reads only once its epoch's first entry is committed, only from committed entries, and not at
 * all once fenced.
 */
class CacheLeaderTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("CacheLeaderTest");
  static final ByteString KEY = ByteString.copyFromUtf8("k");

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, 1);
    ShardAssignment a = leading(2);
    replica.registry.table(new AssignmentTable(1, Map.of(), Map.of(SHARD.stream(), 1), new TreeMap<>(Map.of(SHARD, a)),
        Map.of(SHARD.stream(), new StreamConfig(-1L, -1L, null, new CacheConfig(0)))));
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment leading(long epoch) {
    return new ShardAssignment(SHARD, List.of(1, 2, 3), List.of(), 1, epoch);
  }

  private static Record put(String value) {
    return CacheEntries.put(KEY, ByteString.copyFromUtf8(value), 0, 1000);
  }

  private Response get() throws Exception {
    return read(List.of(KEY), 0);
  }

  private Response read(List<ByteString> keys, int maxBytes) throws Exception {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    replica.tell(new ShardReplica.CacheRead(keys, false, maxBytes, reply));
    return await(reply);
  }

  /** Each answered key as key=value, key=- (none) or key? (not read). */
  private static List<String> answered(Response r) {
    assertFalse(r.hasError() && r.getError().getCode() != ErrorCode.NONE, r.toString());
    return r.getMultiGet().getEntriesList().stream().map(v -> v.getKey().toStringUtf8()
        + (v.getNotRead() ? "?" : v.getFound() ? "=" + v.getValue().toStringUtf8() : "=-")).toList();
  }

  private static String value(Response r) {
    assertFalse(r.hasError() && r.getError().getCode() != ErrorCode.NONE, r.toString());
    CacheValue v = r.getMultiGet().getEntries(0);
    return v.getFound() ? v.getValue().toStringUtf8() : null;
  }

  private CompletableFuture<Response> produce(Record entry) {
    ByteString records = RecordLists.encode(List.of(entry));
    ProduceRequest request = ProduceRequest.newBuilder().setStream(SHARD.stream()).setShard(0).setRecords(records)
        .setAcks(Acks.LEADER).build();
    CompletableFuture<Response> reply = new CompletableFuture<>();
    replica.tell(new ShardReplica.ClientProduce(request, new RecordListSummary(1, 1000, 1000), reply));
    return reply;
  }

  @Test
  void readsWaitForTheEpochsFirstCommitSeeOnlyCommittedEntriesAndStopWhenFenced() throws Exception {
    // Epoch 1 wrote "old" at offset 0; the new leader at epoch 2 writes its marker at 1 and knows commit 0 only.
    replica.log.appendAsLeader(1, 1, 1000, 1000, RecordLists.encode(List.of(put("old"))).asReadOnlyByteBuffer());
    replica.startLeader(leading(2));
    assertEquals(2, replica.describe().logEndOffset());

    Response early = get();
    assertEquals(ErrorCode.TIMEOUT, early.getError().getCode(), "before its marker is committed: " + early);

    replica.followerFetch(fetch(2, 2, 2, 2, 2)); // follower 2 stores the marker: committed up to 2
    kit.createTestProbe().awaitAssert(() -> {
      assertEquals(2, replica.describe().commitOffset());
      return null;
    });
    assertEquals("old", value(get()));

    Response appended = await(produce(put("new"))); // acks leader: appended at 2, not committed
    assertEquals(2, appended.getProduce().getBaseOffset());
    assertEquals("old", value(get()), "an entry above the commit offset is not visible");

    replica.followerFetch(fetch(2, 2, 3, 2, 3));
    kit.createTestProbe().awaitAssert(() -> {
      assertEquals(3, replica.describe().commitOffset());
      return null;
    });
    assertEquals("new", value(get()));

    await(produce(CacheEntries.delete(KEY, 1000)));
    replica.followerFetch(fetch(3, 2, 4, 2, 4));
    kit.createTestProbe().awaitAssert(() -> {
      assertEquals(4, replica.describe().commitOffset());
      return null;
    });
    assertEquals(null, value(get()));

    // Fenced at a newer epoch: it reads nothing any more (a newer leader may hold newer entries).
    replica.tell(new ShardReplica.Fence(3, kit.<ReplicaStatus>createTestProbe().getRef()));
    Response fenced = get();
    assertEquals(ErrorCode.NOT_LEADER, fenced.getError().getCode(), fenced.toString());
  }

  @Test
  void aReadWithAByteBoundReadsItsKeysInOrderWhileTheValuesReadStayBelowItAndAnswersTheRestNotRead()
      throws Exception {
    List<Record> entries = List.of("a", "b", "c").stream().map(k -> CacheEntries.put(ByteString.copyFromUtf8(k),
        ByteString.copyFromUtf8(k.repeat(10)), 0, 1000)).toList();
    replica.log.appendAsLeader(1, entries.size(), 1000, 1000, RecordLists.encode(entries).asReadOnlyByteBuffer());
    replica.startLeader(leading(2)); // its marker at 3
    replica.followerFetch(fetch(2, 2, 4, 2, 4));
    kit.createTestProbe().awaitAssert(() -> {
      assertEquals(4, replica.describe().commitOffset());
      return null;
    });
    List<ByteString> keys = List.of("a", "x", "b", "c").stream().map(ByteString::copyFromUtf8).toList();

    assertEquals(List.of("a=aaaaaaaaaa", "x=-", "b=bbbbbbbbbb", "c=cccccccccc"), answered(read(keys, 0)));
    assertEquals(List.of("a=aaaaaaaaaa", "x=-", "b=bbbbbbbbbb", "c?"), answered(read(keys, 15)),
        "b is read with 10 bytes read (below 15), c with 20 is not");
    assertEquals(List.of("a=aaaaaaaaaa", "x?", "b?", "c?"), answered(read(keys, 1)), "the first key is always read");
    assertEquals(List.of("x=-", "a=aaaaaaaaaa", "b?"),
        answered(read(List.of(keys.get(1), keys.get(0), keys.get(2)), 1)), "a key with no entry reads no bytes");
  }

  @Test
  void aLeaderOutOfContactWithAMajorityDoesNotRead() throws Exception {
    replica.startLeader(leading(2)); // an empty log: no marker, reads allowed at once while in contact
    replica.followerFetch(fetch(2, 2, 0, -1, 0));
    assertEquals(null, value(get()));
    replica.clock.advance(ReplicaFixture.ISR_MAX_LAG_TIME.plusSeconds(1));
    Response alone = get();
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, alone.getError().getCode(), alone.toString());
    assertTrue(alone.getError().getMessage().contains("may have been replaced"), alone.toString());
  }
}
