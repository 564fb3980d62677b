package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas compare their logs below an offset by digest: a follower's copy (the leader's bytes appended as they are,
 * in segments of another size) digests like the leader's log, a batch that differs does not, and a log ending below
 * the offset is short.
 */
class LogDigestTest {
  @TempDir
  Path tmp;
  FlushScheduler flusher;
  final List<ShardLog> open = new ArrayList<>();

  @BeforeEach
  void startFlusher() {
    flusher = FlushScheduler.start(smallSegments(), "test-flusher");
  }

  @AfterEach
  void closeAll() throws IOException {
    for (ShardLog log : open) {
      log.close();
    }
    flusher.close();
  }

  private ShardLog openLog(String name, LogSettings settings) throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve(name), settings, flusher);
    open.add(log);
    return log;
  }

  /** Ten batches of 3 records (offsets 0..29), six per segment, batch i with payload seed i; epoch 2 from batch 5. */
  private ShardLog leaderLog(String name) throws IOException {
    ShardLog log = openLog(name, smallSegments());
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(i < 5 ? 1 : 2, 3, 1000 + i, 1000 + i, payload(i));
    }
    return log;
  }

  /** A follower's copy: the leader's batches as they are, in one big segment instead of many small ones. */
  private ShardLog copyOf(ShardLog leader, String name) throws IOException {
    ShardLog copy = openLog(name, LogSettings.defaults());
    long at = leader.logStartOffset();
    while (at < leader.logEndOffset()) {
      LogRead read = leader.read(at, 1 << 20);
      copy.appendReplicated(read.batches());
      at = read.nextOffset();
    }
    return copy;
  }

  @Test
  void aFollowersCopyOfTheSameBatchesDigestsLikeTheLeadersLog() throws IOException {
    ShardLog leader = leaderLog("leader");
    ShardLog follower = copyOf(leader, "follower");
    assertTrue(leader.segmentCount() > 1 && follower.segmentCount() == 1, "segments differ, batches do not");

    LogDigest ofLeader = LogDigest.of(leader, 24, LogDigest.Scope.WHOLE_BATCHES);
    LogDigest ofFollower = LogDigest.of(follower, 24, LogDigest.Scope.WHOLE_BATCHES);

    assertEquals(new LogDigest(24, 0, 30, 24, 8, ofLeader.crc32c()), ofLeader);
    assertEquals(ofLeader, ofFollower);
    assertEquals(LogDigest.of(leader, 24, LogDigest.Scope.BATCH_HEADERS),
        LogDigest.of(follower, 24, LogDigest.Scope.BATCH_HEADERS));
    assertNotEquals(ofLeader.crc32c(), LogDigest.of(leader, 21, LogDigest.Scope.WHOLE_BATCHES).crc32c(),
        "one batch fewer");
  }

  @Test
  void anOffsetInsideABatchDigestsUpToTheBatchBelowIt() throws IOException {
    ShardLog leader = leaderLog("leader");

    LogDigest inside = LogDigest.of(leader, 25, LogDigest.Scope.WHOLE_BATCHES);

    assertEquals(24, inside.digestedTo());
    assertEquals(8, inside.batches());
    assertEquals(LogDigest.of(leader, 24, LogDigest.Scope.WHOLE_BATCHES).crc32c(), inside.crc32c());
  }

  @Test
  void aBatchWithAnotherPayloadOrEpochGivesAnotherDigest() throws IOException {
    ShardLog leader = leaderLog("leader");
    ShardLog otherPayload = openLog("other-payload", smallSegments());
    ShardLog otherEpoch = openLog("other-epoch", smallSegments());
    for (int i = 0; i < 10; i++) {
      otherPayload.appendAsLeader(i < 5 ? 1 : 2, 3, 1000 + i, 1000 + i, payload(i == 3 ? 99 : i));
      otherEpoch.appendAsLeader(i < 3 ? 1 : 2, 3, 1000 + i, 1000 + i, payload(i));
    }

    long leaders = LogDigest.of(leader, 30, LogDigest.Scope.WHOLE_BATCHES).crc32c();
    assertNotEquals(leaders, LogDigest.of(otherPayload, 30, LogDigest.Scope.WHOLE_BATCHES).crc32c());
    assertNotEquals(leaders, LogDigest.of(otherEpoch, 30, LogDigest.Scope.WHOLE_BATCHES).crc32c());
    // A cache's digest leaves payloads out (its replicas compact them each at their own pace), not epochs.
    long leaderHeaders = LogDigest.of(leader, 30, LogDigest.Scope.BATCH_HEADERS).crc32c();
    assertEquals(leaderHeaders, LogDigest.of(otherPayload, 30, LogDigest.Scope.BATCH_HEADERS).crc32c());
    assertNotEquals(leaderHeaders, LogDigest.of(otherEpoch, 30, LogDigest.Scope.BATCH_HEADERS).crc32c());
  }

  @Test
  void aLogEndingBelowTheOffsetIsShort() throws IOException {
    ShardLog leader = leaderLog("leader");

    LogDigest beyond = LogDigest.of(leader, 31, LogDigest.Scope.WHOLE_BATCHES);

    assertTrue(beyond.isShort());
    assertEquals(new LogDigest(31, 0, 30, -1, 0, 0), beyond);
    LogDigest atTheEnd = LogDigest.of(leader, 30, LogDigest.Scope.WHOLE_BATCHES);
    assertFalse(atTheEnd.isShort());
    assertEquals(10, atTheEnd.batches());
  }

  @Test
  void anEmptyLogDigestsNothingBelowItsStart() throws IOException {
    ShardLog empty = openLog("empty", smallSegments());

    assertEquals(new LogDigest(0, 0, 0, 0, 0, 0), LogDigest.of(empty, 0, LogDigest.Scope.WHOLE_BATCHES));
    assertTrue(LogDigest.of(empty, 1, LogDigest.Scope.WHOLE_BATCHES).isShort());
  }

  @Test
  void aCopyThatLostItsTailIsShortAndItsPrefixStillAgrees() throws IOException {
    ShardLog leader = leaderLog("leader");
    ShardLog follower = copyOf(leader, "follower");
    follower.truncateTo(15);

    assertTrue(LogDigest.of(follower, 24, LogDigest.Scope.WHOLE_BATCHES).isShort());
    assertEquals(LogDigest.of(leader, 15, LogDigest.Scope.WHOLE_BATCHES).crc32c(),
        LogDigest.of(follower, 15, LogDigest.Scope.WHOLE_BATCHES).crc32c());
  }
}
