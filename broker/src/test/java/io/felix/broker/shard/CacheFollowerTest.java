package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.await;
import static io.felix.broker.shard.ReplicaFixture.batchesFrom;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.log.ShardLog;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Follower reads of a cache shard (broker 2 follows broker 1; the leader's answers are built from a second real log;
 * time on a manual clock): a follower answers only reads that allow it, only from the entries committed as far as it
 * knows, and only while its leader answered within felix.cache.follower-read-max-lag; after truncating a diverged
 * tail it reads the new leader's entry.
 */
class CacheFollowerTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("CacheFollowerTest");
  static final ByteString KEY = ByteString.copyFromUtf8("k");
  static final int LEADER = 1;

  ShardLog leaderLog;

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, 2);
    leaderLog = replica.openOtherLog(tmp.resolve("leader"));
    replica.registry.table(new AssignmentTable(1, Map.of(), Map.of(SHARD.stream(), 1),
        new TreeMap<>(Map.of(SHARD, following(1))),
        Map.of(SHARD.stream(), new StreamConfig(-1L, -1L, null, new CacheConfig(0)))));
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment following(long epoch) {
    return new ShardAssignment(SHARD, List.of(LEADER, 2, 3), List.of(), LEADER, epoch);
  }

  private static void put(ShardLog log, long epoch, String value) {
    log.appendAsLeader(epoch, 1, 1000, 1000, RecordLists.encode(List.of(
        CacheEntries.put(KEY, ByteString.copyFromUtf8(value), 0, 1000))).asReadOnlyByteBuffer());
  }

  private Response read(boolean allowFollower) throws Exception {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    replica.tell(new ShardReplica.CacheRead(List.of(KEY), allowFollower, 0, reply));
    return await(reply);
  }

  private static String value(Response r) {
    assertFalse(r.hasError() && r.getError().getCode() != ErrorCode.NONE, r.toString());
    CacheValue v = r.getMultiGet().getEntries(0);
    return v.getFound() ? v.getValue().toStringUtf8() + "@" + v.getOffset() : null;
  }

  private void answer(ReplicaFetch fetch, long commitOffset) {
    replica.sessions.leaderAnsweredAtNanos = replica.clock.nanoTime(); // the leader broker answered the session now
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, ReplicaFetchResult.newBuilder()
        .setShard(fetch.getShard()).setLeaderEpoch(fetch.getLeaderEpoch()).setFetchId(fetch.getFetchId())
        .setFetchOffset(fetch.getFetchOffset()).setLeaderLogEndOffset(leaderLog.logEndOffset())
        .setBatches(batchesFrom(leaderLog, fetch.getFetchOffset())).setCommitOffset(commitOffset).build()));
  }

  @Test
  void aFollowerReadsCommittedEntriesWhileItsLeaderAnswersAndOnlyWhenAllowed() throws Exception {
    put(leaderLog, 1, "v1");
    put(leaderLog, 1, "v2");
    replica.startFollower(following(1));
    assertEquals(ErrorCode.NOT_LEADER, read(true).getError().getCode(), "not heard from its leader yet");

    answer(replica.sessions.nextFetch(LEADER), 1); // both entries copied, only v1 committed
    assertEquals("v1@0", value(read(true)), "an entry above the commit offset it knows is not visible");
    assertEquals(ErrorCode.NOT_LEADER, read(false).getError().getCode(), "a read that wants the leader");

    answer(replica.sessions.nextFetch(LEADER), 2);
    assertEquals("v2@1", value(read(true)));

    replica.clock.advance(Duration.ofMillis(1001)); // felix.cache.follower-read-max-lag (1 s) without an answer
    assertEquals(ErrorCode.NOT_LEADER, read(true).getError().getCode(), "out of contact with its leader");
  }

  @Test
  void aFollowerThatTruncatedItsTailReadsTheNewLeadersEntry() throws Exception {
    put(replica.log, 1, "kept"); // offset 0, epoch 1
    put(replica.log, 1, "uncommitted"); // offset 1, epoch 1: the old leader's tail, never committed
    put(leaderLog, 1, "kept");
    put(leaderLog, 3, "new"); // offset 1 at epoch 3 on the new leader
    replica.startFollower(following(3));
    replica.tell(ShardReplica.Tick.HOUSEKEEPING); // the follower builds its index (and would compact) then
    ReplicaFetch first = replica.sessions.nextFetch(LEADER);
    replica.tell(new ShardReplica.FetchResultArrived(LEADER, ReplicaFetchResult.newBuilder()
        .setShard(first.getShard()).setLeaderEpoch(3).setFetchId(first.getFetchId())
        .setFetchOffset(first.getFetchOffset()).setError(io.felix.protocol.replication.FetchError.FETCH_DIVERGING)
        .setDivergingEpoch(1).setDivergingEndOffset(1).build()));
    ReplicaFetch afterTruncation = replica.sessions.nextFetch(LEADER);
    assertEquals(1, afterTruncation.getFetchOffset());
    answer(afterTruncation, 2);
    assertEquals("new@1", value(read(true)));
  }
}
