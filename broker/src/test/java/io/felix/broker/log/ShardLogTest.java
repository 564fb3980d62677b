package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.BATCH;
import static io.felix.broker.log.LogTestSupport.bytes;
import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardLogTest {
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

  ShardLog openLog(String name) throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve(name), smallSegments(), flusher);
    open.add(log);
    return log;
  }

  /** Appends {@code batches} batches of 3 records each, batch i with payload seed i and timestamps 1000 + i. */
  static void appendBatches(ShardLog log, long epoch, int from, int batches) {
    for (int i = from; i < from + batches; i++) {
      long base = log.appendAsLeader(epoch, 3, 1000 + i, 1000 + i, payload(i));
      assertEquals(3L * i, base);
    }
  }

  static List<String> files(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".log")).sorted().toList();
    }
  }

  @Test
  void anEntryReadAfterATruncationReadsTheBatchAppendedSinceNotTheOneItLocatedBefore() throws IOException {
    ShardLog log = openLog("located");
    appendBatches(log, 0, 0, 3); // offsets 0..8, batches of 3 records
    byte[] first = bytes(log.readPayloadBytes(4, 2, 10)); // batch 3..5, located and remembered
    assertArrayEquals(java.util.Arrays.copyOfRange(bytes(payload(1)), 2, 12), first);
    assertArrayEquals(first, bytes(log.readPayloadBytes(4, 2, 10)), "read again from the remembered batch");

    assertEquals(3, log.truncateTo(3));
    log.appendAsLeader(1, 1, 2000, 2000, payload(7)); // offset 3 alone where batch 3..5 began
    log.appendAsLeader(1, 2, 2000, 2000, payload(8)); // offsets 4..5
    assertArrayEquals(java.util.Arrays.copyOfRange(bytes(payload(8)), 2, 12), bytes(log.readPayloadBytes(4, 2, 10)),
        "offset 4 is in the second batch now");
    assertEquals(0, bytes(log.readPayloadBytes(7, 2, 10)).length, "offset 7 is gone");
  }

  @Test
  void appendsAssignOffsetsRollSegmentsAndReadBackEveryOffset() throws IOException {
    ShardLog log = openLog("a");
    appendBatches(log, 0, 0, 20);

    assertEquals(60, log.logEndOffset());
    assertEquals(0, log.logStartOffset());
    // 6 batches of 164 bytes fit in 1000; 20 batches make segments at 0, 18, 36, 54.
    assertEquals(List.of("00000000000000000000.log", "00000000000000000018.log", "00000000000000000036.log",
        "00000000000000000054.log"), files(log.directory()));
    assertEquals(6L * BATCH, Files.size(log.directory().resolve("00000000000000000000.log")));
    assertEquals(2L * BATCH, Files.size(log.directory().resolve("00000000000000000054.log")));

    for (long offset = 0; offset < 60; offset++) {
      LogRead read = log.read(offset, 1); // smaller than a batch: the containing batch comes whole
      int batchNo = (int) (offset / 3);
      assertEquals(BATCH, read.batches().remaining(), "offset " + offset);
      assertEquals(3L * batchNo + 3, read.nextOffset());
      LogBatch batch = read.decoder().next();
      assertEquals(3L * batchNo, batch.baseOffset());
      assertEquals(3, batch.recordCount());
      assertEquals(0, batch.leaderEpoch());
      assertEquals(1000 + batchNo, batch.firstTimestamp());
      assertEquals(1000 + batchNo, batch.maxTimestamp());
      assertArrayEquals(bytes(payload(batchNo)), bytes(batch.payload()));
    }
  }

  @Test
  void readsStopAtByteLimitSegmentEndAndUpperOffset() throws IOException {
    ShardLog log = openLog("a");
    appendBatches(log, 0, 0, 20);

    LogRead wholeSegment = log.read(0, 1 << 20);
    assertEquals(6 * BATCH, wholeSegment.batches().remaining());
    assertEquals(18, wholeSegment.nextOffset());

    LogRead twoBatches = log.read(4, 2 * BATCH + 10);
    assertEquals(2 * BATCH, twoBatches.batches().remaining());
    assertEquals(9, twoBatches.nextOffset());
    assertEquals(3, twoBatches.decoder().next().baseOffset());

    LogRead belowCommit = log.read(0, 1 << 20, 10); // only batches ending at or before offset 10
    assertEquals(3 * BATCH, belowCommit.batches().remaining());
    assertEquals(9, belowCommit.nextOffset());

    LogRead straddling = log.read(9, 1 << 20, 10); // batch 9..11 ends after 10
    assertTrue(straddling.isEmpty());
    assertEquals(9, straddling.nextOffset());

    assertTrue(log.read(60, 1000).isEmpty());
    OffsetOutOfRangeException beyond = assertThrows(OffsetOutOfRangeException.class, () -> log.read(61, 1000));
    assertEquals(60, beyond.logEndOffset());
  }

  @Test
  void epochIndexGivesTheEndOffsetOfEachEpochAndBadAppendsChangeNothing() throws Exception {
    ShardLog log = openLog("a");
    assertEquals(-1, log.lastEpoch());
    assertEquals(0, log.endOffsetForEpoch(0));
    assertEquals(new EpochEnd(-1, 0), log.epochEndFor(5));
    appendBatches(log, 1, 0, 2);  // epoch 1: [0, 6)
    appendBatches(log, 3, 2, 2);  // epoch 3: [6, 12)
    appendBatches(log, 4, 4, 1);  // epoch 4: [12, 15)

    assertEquals(4, log.lastEpoch());
    assertEquals(List.of(new EpochStart(1, 0), new EpochStart(3, 6), new EpochStart(4, 12)),
        log.epochStarts());
    assertEquals(0, log.endOffsetForEpoch(0));
    assertEquals(6, log.endOffsetForEpoch(1));
    assertEquals(6, log.endOffsetForEpoch(2));
    assertEquals(12, log.endOffsetForEpoch(3));
    assertEquals(15, log.endOffsetForEpoch(4));
    assertEquals(15, log.endOffsetForEpoch(9));
    assertEquals(new EpochEnd(-1, 0), log.epochEndFor(0));
    assertEquals(new EpochEnd(1, 6), log.epochEndFor(1));
    assertEquals(new EpochEnd(1, 6), log.epochEndFor(2));
    assertEquals(new EpochEnd(3, 12), log.epochEndFor(3));
    assertEquals(new EpochEnd(4, 15), log.epochEndFor(4));
    assertEquals(new EpochEnd(4, 15), log.epochEndFor(9));
    // The epoch file is written by the flush rounds, before the batches of a new epoch count as durable.
    log.awaitDurable(15).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals("1 0\n3 6\n4 12\n",
        new CheckpointFile(log.directory(), EpochIndex.FILE_NAME).read().orElseThrow());

    InvalidBatchException tooLarge = assertThrows(InvalidBatchException.class,
        () -> log.appendAsLeader(4, 1, 0, 0, payload(9, 1000)));
    assertEquals("a batch of 1064 bytes is larger than felix.log.segment-bytes (1000)", tooLarge.getMessage());
    InvalidBatchException empty = assertThrows(InvalidBatchException.class,
        () -> log.appendAsLeader(4, 0, 0, 0, payload(9)));
    assertEquals("a batch needs at least one record, got 0", empty.getMessage());
    InvalidBatchException stale = assertThrows(InvalidBatchException.class,
        () -> log.appendAsLeader(3, 1, 0, 0, payload(9)));
    assertEquals("leader epoch 3 is below the log's last epoch 4", stale.getMessage());
    assertEquals(15, log.logEndOffset());
  }

  @Test
  void truncationCutsAtTheBatchBoundaryAndAppendsContinueFromThere() throws IOException {
    ShardLog log = openLog("a");
    appendBatches(log, 1, 0, 13);   // [0, 39) epoch 1
    appendBatches(log, 2, 13, 7);   // [39, 60) epoch 2

    assertEquals(39, log.truncateTo(40)); // 40 lies in batch 39..41: the whole batch goes
    assertEquals(39, log.logEndOffset());
    assertEquals(1, log.lastEpoch());
    assertEquals(List.of(new EpochStart(1, 0)), log.epochStarts());
    assertEquals(List.of("00000000000000000000.log", "00000000000000000018.log", "00000000000000000036.log"),
        files(log.directory()));
    assertEquals(BATCH, Files.size(log.directory().resolve("00000000000000000036.log")));
    assertTrue(log.read(39, 1000).isEmpty());

    assertEquals(39, log.appendAsLeader(5, 2, 7, 7, payload(77)));
    assertEquals(41, log.logEndOffset());
    LogBatch appended = log.read(39, 1000).decoder().next();
    assertEquals(5, appended.leaderEpoch());
    assertArrayEquals(bytes(payload(77)), bytes(appended.payload()));
    assertEquals(41, log.endOffsetForEpoch(5));
    assertEquals(39, log.endOffsetForEpoch(1));

    assertEquals(36, log.truncateTo(36)); // a segment's base: the segment stays, empty
    assertEquals(List.of("00000000000000000000.log", "00000000000000000018.log", "00000000000000000036.log"),
        files(log.directory()));
    assertEquals(0, Files.size(log.directory().resolve("00000000000000000036.log")));
    assertEquals(36, log.appendAsLeader(6, 1, 0, 0, payload(1)));
  }

  @Test
  void truncationFailsWaitersForRemovedRecords() throws Exception {
    ShardLog log = openLog("a");
    appendBatches(log, 1, 0, 2);
    log.awaitDurable(6).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertEquals(3, log.truncateTo(3));
    assertEquals(3, log.durableOffset());
    assertThrows(IllegalArgumentException.class, () -> log.awaitDurable(6)); // beyond the end now
  }

  @Test
  void reopenAfterCloseKeepsOffsetsEpochsAndData() throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve("a"), smallSegments(), flusher);
    appendBatches(log, 2, 0, 10);
    appendBatches(log, 7, 10, 5);
    List<byte[]> before = new ArrayList<>();
    for (long o = 0; o < 45; o = log.read(o, 1).nextOffset()) {
      before.add(bytes(log.read(o, 1).batches()));
    }
    log.close();

    ShardLog reopened = openLog("a");
    assertEquals(45, reopened.logEndOffset());
    assertEquals(45, reopened.durableOffset());
    assertEquals(7, reopened.lastEpoch());
    assertEquals(List.of(new EpochStart(2, 0), new EpochStart(7, 30)), reopened.epochStarts());
    assertEquals(30, reopened.endOffsetForEpoch(2));
    // offset 45 ends the active segment (base 36, three 164-byte batches): "offset segment-base position"
    assertEquals("45 36 492", new CheckpointFile(reopened.directory(), ShardLog.RECOVERY_POINT).read().orElseThrow());
    List<byte[]> after = new ArrayList<>();
    for (long o = 0; o < 45; o = reopened.read(o, 1).nextOffset()) {
      after.add(bytes(reopened.read(o, 1).batches()));
    }
    assertEquals(before.size(), after.size());
    for (int i = 0; i < before.size(); i++) {
      assertArrayEquals(before.get(i), after.get(i));
    }
    assertEquals(45, reopened.appendAsLeader(7, 1, 0, 0, payload(3)));
  }

  @Test
  void aSecondOwnerCannotOpenTheSameDirectory() throws IOException {
    ShardLog log = openLog("a");
    IOException e = assertThrows(IOException.class, () -> ShardLog.open(log.directory(), smallSegments(), flusher));
    assertTrue(e.getMessage().contains("already open"), e.getMessage());
  }

  @Test
  void followerAppendsTheLeadersBatchesByteForByte() throws IOException {
    ShardLog leader = openLog("leader");
    ShardLog follower = openLog("follower");
    appendBatches(leader, 1, 0, 8);
    appendBatches(leader, 2, 8, 9);
    while (follower.logEndOffset() < leader.logEndOffset()) {
      LogRead read = leader.read(follower.logEndOffset(), 500);
      assertEquals(read.nextOffset(), follower.appendReplicated(read.batches()));
    }
    assertEquals(51, follower.logEndOffset());
    assertEquals(leader.epochStarts(), follower.epochStarts());
    assertEquals(files(leader.directory()), files(follower.directory()));
    for (String f : files(leader.directory())) {
      assertArrayEquals(Files.readAllBytes(leader.directory().resolve(f)),
          Files.readAllBytes(follower.directory().resolve(f)), f);
    }
  }

  @Test
  void followerRejectsGapsBadCrcAndStaleEpochsWithoutWritingAnything() throws IOException {
    ShardLog follower = openLog("follower");
    follower.appendReplicated(LogBatch.encode(0, 3, 4, 0, 0, payload(0)));
    assertEquals(3, follower.logEndOffset());

    InvalidBatchException gap = assertThrows(InvalidBatchException.class,
        () -> follower.appendReplicated(LogBatch.encode(4, 1, 4, 0, 0, payload(1))));
    assertEquals("batch 0 starts at offset 4 but the log continues at 3", gap.getMessage());

    InvalidBatchException stale = assertThrows(InvalidBatchException.class,
        () -> follower.appendReplicated(LogBatch.encode(3, 1, 3, 0, 0, payload(1))));
    assertEquals("batch 0 at offset 3 has leader epoch 3, below the log's epoch 4", stale.getMessage());

    ByteBuffer good = LogBatch.encode(3, 2, 4, 0, 0, payload(1));
    ByteBuffer flipped = LogBatch.encode(5, 2, 4, 0, 0, payload(2));
    flipped.put(70, (byte) (flipped.get(70) ^ 1));
    ByteBuffer both = ByteBuffer.allocate(good.remaining() + flipped.remaining()).put(good).put(flipped).flip();
    InvalidBatchException corrupt = assertThrows(InvalidBatchException.class, () -> follower.appendReplicated(both));
    assertEquals("batch at byte 164 of a 328-byte range is corrupt (bad header or CRC)", corrupt.getMessage());

    assertEquals(3, follower.logEndOffset()); // the good first batch was not written either
    assertEquals(BATCH, Files.size(follower.directory().resolve("00000000000000000000.log")));
  }

  @Test
  void anInterruptedReaderDoesNotBreakAppendsFsyncsOrOtherReads() throws Exception {
    ShardLog log = openLog("a");
    appendBatches(log, 0, 0, 3);
    Thread.currentThread().interrupt();
    try {
      assertThrows(java.io.UncheckedIOException.class, () -> log.read(0, 1000)); // the interrupt closes its channel
    } finally {
      assertTrue(Thread.interrupted());
    }
    appendBatches(log, 0, 3, 1);
    assertEquals(12L, log.awaitDurable(12).toCompletableFuture().get(10, TimeUnit.SECONDS));
    assertEquals(4 * BATCH, log.read(0, 1000).batches().remaining());
  }

  @Test
  void deleteAllRemovesTheDirectory() throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve("gone"), smallSegments(), flusher);
    appendBatches(log, 0, 0, 10);
    log.deleteAll();
    assertTrue(Files.notExists(tmp.resolve("gone")));
    assertThrows(IllegalStateException.class, () -> log.appendAsLeader(0, 1, 0, 0, payload(1)));
  }
}
