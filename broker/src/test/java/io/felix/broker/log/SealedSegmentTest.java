package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.BATCH;
import static io.felix.broker.log.LogTestSupport.bytes;
import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Index files of sealed segments, and {@code verify-on-open = unflushed}, which trusts sealed segments. */
class SealedSegmentTest {
  static final LogSettings UNFLUSHED = smallSegments().withVerifyOnOpen(LogSettings.VerifyOnOpen.UNFLUSHED);

  @TempDir
  Path tmp;
  FlushScheduler flusher;
  Path dir;

  @BeforeEach
  void setUp() {
    flusher = FlushScheduler.start(smallSegments(), "test-flusher");
    dir = tmp.resolve("log");
  }

  @AfterEach
  void tearDown() {
    flusher.close();
  }

  /** 20 batches of 3 records (segments at 0, 18, 36, 54; recovery point 54), epoch 1 then epoch 2 from offset 27. */
  void crashAfterTwentyBatches() throws Exception {
    ShardLog log = ShardLog.open(dir, smallSegments(), flusher);
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(i < 9 ? 1 : 2, 3, i, i, payload(i));
    }
    log.awaitDurable(60).toCompletableFuture().get(10, TimeUnit.SECONDS);
    log.closeAsIfCrashed();
  }

  @Test
  void rollingWritesTheSealedSegmentsIndexFile() throws Exception {
    crashAfterTwentyBatches();
    // An entry every 400 bytes of 164-byte batches: batches 0 and 3 of each segment.
    ByteBuffer expected = ByteBuffer.allocate(24).putLong(18).putInt(0).putLong(27).putInt(3 * BATCH).flip();
    assertArrayEquals(bytes(expected), Files.readAllBytes(dir.resolve("00000000000000000018.index")));
    assertTrue(Files.exists(dir.resolve("00000000000000000000.index")));
    assertTrue(Files.exists(dir.resolve("00000000000000000036.index")));
    assertTrue(Files.notExists(dir.resolve("00000000000000000054.index"))); // the active segment has none
  }

  @Test
  void unflushedVerificationTrustsSealedSegmentsAndStillRecoversTheTail() throws Exception {
    crashAfterTwentyBatches();
    flipByte(dir.resolve("00000000000000000018.log"), BATCH + 60); // batch at offset 21: not read on open
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("00000000000000000054.log").toFile(), "rw")) {
      f.setLength(2L * BATCH - 10); // a torn last batch in the active segment
    }

    try (ShardLog log = ShardLog.open(dir, UNFLUSHED, flusher)) {
      assertEquals(57, log.logEndOffset());
      assertEquals(List.of(new EpochStart(1, 0), new EpochStart(2, 27)), log.epochStarts());
      for (long offset = 0; offset < 57; offset++) {
        if (offset / 3 == 7) {
          continue;
        }
        LogBatch batch = log.read(offset, 1).decoder().next();
        assertEquals(offset / 3 * 3, batch.baseOffset());
        assertArrayEquals(bytes(payload((int) (offset / 3))), bytes(batch.payload()));
      }
      // The trade-off: the damaged batch is served, and only the reader's CRC check catches it.
      assertThrows(InvalidBatchException.class, () -> log.read(21, 1).decoder().next());
    }
  }

  @Test
  void aMissingIndexFileIsRebuiltFromTheBatchHeaders() throws Exception {
    crashAfterTwentyBatches();
    Files.delete(dir.resolve("00000000000000000018.index"));
    Files.write(dir.resolve("00000000000000000036.index"), new byte[] {1, 2, 3}); // not whole entries
    try (ShardLog log = ShardLog.open(dir, UNFLUSHED, flusher)) {
      assertEquals(60, log.logEndOffset());
      for (long offset = 0; offset < 60; offset++) {
        assertEquals(offset / 3 * 3, log.read(offset, 1).decoder().next().baseOffset());
      }
    }
  }

  @Test
  void aRebuiltIndexFileIsWrittenBackBeforeTheLogServes() throws Exception {
    crashAfterTwentyBatches();
    byte[] asRolled = Files.readAllBytes(dir.resolve("00000000000000000018.index"));
    Files.delete(dir.resolve("00000000000000000018.index"));
    ShardLog log = ShardLog.open(dir, UNFLUSHED, flusher);
    assertEquals(60, log.logEndOffset());
    log.closeAsIfCrashed();
    assertArrayEquals(asRolled, Files.readAllBytes(dir.resolve("00000000000000000018.index")));
  }

  @Test
  void aSealedSegmentWhoseHeadersStopShortOfTheNextSegmentIsCorruption() throws Exception {
    crashAfterTwentyBatches();
    Files.delete(dir.resolve("00000000000000000018.index"));
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("00000000000000000018.log").toFile(), "rw")) {
      f.setLength(5L * BATCH); // lost its last batch
    }
    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, UNFLUSHED, flusher));
    assertTrue(e.getMessage().endsWith("sealed segment 00000000000000000018.log does not hold offsets [18, 36)"),
        e.getMessage());
  }

  @Test
  void withoutAnEpochFileEverySegmentIsVerified() throws Exception {
    crashAfterTwentyBatches();
    Files.delete(dir.resolve(EpochIndex.FILE_NAME));
    flipByte(dir.resolve("00000000000000000018.log"), BATCH + 60);
    assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, UNFLUSHED, flusher));
  }

  @Test
  void truncatingIntoASealedSegmentRemovesItsIndexFile() throws Exception {
    crashAfterTwentyBatches();
    try (ShardLog log = ShardLog.open(dir, smallSegments(), flusher)) {
      assertEquals(21, log.truncateTo(21));
      assertTrue(Files.notExists(dir.resolve("00000000000000000018.index")));
      assertTrue(Files.notExists(dir.resolve("00000000000000000036.index")));
      assertTrue(Files.exists(dir.resolve("00000000000000000000.index")));
    }
  }

  static void flipByte(Path file, long position) throws Exception {
    LogRecoveryTest.flipByte(file, position);
  }
}
