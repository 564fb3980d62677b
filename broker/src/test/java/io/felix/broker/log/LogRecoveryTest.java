package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.BATCH;
import static io.felix.broker.log.LogTestSupport.bytes;
import static io.felix.broker.log.LogTestSupport.oneBigSegment;
import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Recovery on open: damage after the recovery point (what a crash leaves) is dropped with a log line giving the
 * bytes; damage below it is corruption and the log refuses to open.
 */
class LogRecoveryTest {
  @TempDir
  Path tmp;
  FlushScheduler flusher;
  ListAppender<ILoggingEvent> logLines;
  Path dir;

  @BeforeEach
  void setUp() {
    flusher = FlushScheduler.start(smallSegments(), "test-flusher");
    logLines = new ListAppender<>();
    logLines.start();
    ((Logger) LoggerFactory.getLogger(ShardLog.class)).addAppender(logLines);
    ((Logger) LoggerFactory.getLogger(ShardLog.class)).setLevel(Level.DEBUG); // recovery's per-log lines

    dir = tmp.resolve("log");
  }

  @AfterEach
  void tearDown() {
    ((Logger) LoggerFactory.getLogger(ShardLog.class)).detachAppender(logLines);
    ((Logger) LoggerFactory.getLogger(ShardLog.class)).setLevel(null);
    flusher.close();
  }

  /** Appends 10 batches of 3 records into one segment, fsyncs them, and stops as a crashed process would. */
  void crashAfterTenBatches(LogSettings settings) throws Exception {
    ShardLog log = ShardLog.open(dir, settings, flusher);
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(1, 3, i, i, payload(i));
    }
    log.awaitDurable(30).toCompletableFuture().get(10, TimeUnit.SECONDS);
    log.closeAsIfCrashed();
  }

  static void flipByte(Path file, long position) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(position);
      int b = f.read();
      f.seek(position);
      f.write(b ^ 0x40);
    }
  }

  String warnings() {
    return String.join("\n", logLines.list.stream().map(ILoggingEvent::getFormattedMessage).toList());
  }

  Path firstSegment() {
    return dir.resolve("00000000000000000000.log");
  }

  @Test
  void tornTailIsDroppedWithTheExactByteCount() throws Exception {
    crashAfterTenBatches(oneBigSegment());
    try (RandomAccessFile f = new RandomAccessFile(firstSegment().toFile(), "rw")) {
      f.setLength(10L * BATCH - 50); // the last batch lost its last 50 bytes
    }

    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(27, log.logEndOffset());
      assertEquals(9L * BATCH, Files.size(firstSegment()));
      assertTrue(warnings().contains("dropped 114 bytes from offset 27 (segment 00000000000000000000.log, byte 1476)"
          + ": incomplete batch"), warnings());
      assertEquals(27, log.appendAsLeader(1, 3, 0, 0, payload(50)));
      assertArrayEquals(bytes(payload(50)), bytes(log.read(27, 1000).decoder().next().payload()));
    }
  }

  @Test
  void recordsKeptAfterATornTailAreFsyncedAndBecomeTheRecoveryPointBeforeTheLogServes() throws Exception {
    crashAfterTenBatches(oneBigSegment()); // no roll, no clean close: no recovery point yet
    try (RandomAccessFile f = new RandomAccessFile(firstSegment().toFile(), "rw")) {
      f.setLength(10L * BATCH - 50);
    }

    ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher);
    assertEquals(27, log.logEndOffset());
    assertEquals(27, log.durableOffset());
    // Served as durable, so recorded as durable before open returns, not only at the next roll or clean close.
    assertEquals("27 0 1476", new CheckpointFile(dir, ShardLog.RECOVERY_POINT).read().orElseThrow()); // offset, segment, byte
    assertTrue(warnings().contains("fsynced the records in [0, 27) kept by recovery; recovery point now 27"),
        warnings());
    log.closeAsIfCrashed();

    // Damage in those records is now corruption of acknowledged data, no longer a tail to drop silently.
    flipByte(firstSegment(), 2L * BATCH + 60);
    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, oneBigSegment(), flusher));
    assertTrue(e.getMessage().contains("(offset 6)"), e.getMessage());
  }

  @Test
  void aLogThatEndsAtItsRecoveryPointIsNotRewrittenOnOpen() throws Exception {
    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      log.appendAsLeader(1, 3, 0, 0, payload(0));
    } // a clean close: recovery point 3
    long written = Files.getLastModifiedTime(dir.resolve(ShardLog.RECOVERY_POINT)).toMillis();
    Thread.sleep(20);
    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(3, log.logEndOffset());
      assertEquals(written, Files.getLastModifiedTime(dir.resolve(ShardLog.RECOVERY_POINT)).toMillis());
      assertTrue(!warnings().contains("kept by recovery"), warnings());
    }
  }

  @Test
  void flippedByteInTheLastBatchFailsItsCrcAndTheBatchIsDropped() throws Exception {
    crashAfterTenBatches(oneBigSegment());
    flipByte(firstSegment(), 9L * BATCH + LogBatch.HEADER_BYTES + 10); // in the last batch's payload

    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(27, log.logEndOffset());
      assertEquals(9L * BATCH, Files.size(firstSegment()));
      assertTrue(warnings().contains("dropped 164 bytes from offset 27 (segment 00000000000000000000.log, byte 1476)"
          + ": bad header or CRC"), warnings());
    }
  }

  @Test
  void zeroesLeftAfterTheLastBatchAreDropped() throws Exception {
    crashAfterTenBatches(oneBigSegment());
    try (RandomAccessFile f = new RandomAccessFile(firstSegment().toFile(), "rw")) {
      f.setLength(10L * BATCH + 4096); // a file extended but never written, as some file systems leave it
    }
    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(30, log.logEndOffset());
      assertTrue(warnings().contains("dropped 4096 bytes from offset 30"), warnings());
    }
  }

  @Test
  void aLengthFieldDamagedToAlmost2GiBIsReportedWithoutAllocatingIt() throws Exception {
    ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher);
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(1, 1, i, i, payload(i, 100_000)); // 2 MB: more than the 1 MiB the scan reads at a time
    }
    log.close();
    int batch = LogBatch.HEADER_BYTES + 100_000;
    try (RandomAccessFile f = new RandomAccessFile(firstSegment().toFile(), "rw")) {
      f.seek(3L * batch + LogBatch.LENGTH_AT);
      f.writeInt(Integer.MAX_VALUE - LogBatch.HEADER_BYTES);
    }
    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, oneBigSegment(), flusher));
    assertTrue(e.getMessage().contains("damaged at byte " + 3 * batch + " (offset 3): incomplete batch"),
        e.getMessage());
  }

  @Test
  void damageFollowedByValidBatchesAfterTheRecoveryPointIsDroppedWithThem() throws Exception {
    // Pages of unflushed batches can reach the disk out of order: a damaged batch followed by valid ones is still
    // the crash's unflushed tail when it lies after the recovery point.
    crashAfterTenBatches(oneBigSegment());
    flipByte(firstSegment(), 7L * BATCH + 20);
    try (ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(21, log.logEndOffset());
      assertTrue(warnings().contains("dropped 492 bytes from offset 21"), warnings());
    }
  }

  @Test
  void flippedByteInAnOlderSegmentMakesTheLogRefuseToOpen() throws Exception {
    ShardLog log = ShardLog.open(dir, smallSegments(), flusher);
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(1, 3, i, i, payload(i)); // segments at 0, 18, 36, 54
    }
    log.awaitDurable(60).toCompletableFuture().get(10, TimeUnit.SECONDS);
    log.closeAsIfCrashed(); // the rolls recorded recovery point 54
    flipByte(dir.resolve("00000000000000000018.log"), 2L * BATCH + 60);

    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, smallSegments(), flusher));
    assertEquals("log " + dir + ": segment 00000000000000000018.log is damaged at byte 328 (offset 24): bad header "
        + "or CRC; records up to the recovery point 54 were durable, so this is corruption", e.getMessage());
    assertEquals(6L * BATCH, Files.size(dir.resolve("00000000000000000018.log"))); // nothing was cut
    assertEquals(2L * BATCH, Files.size(dir.resolve("00000000000000000054.log")));
  }

  @Test
  void flippedByteInTheLastBatchAfterACleanCloseIsCorruption() throws Exception {
    ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher);
    for (int i = 0; i < 10; i++) {
      log.appendAsLeader(1, 3, i, i, payload(i));
    }
    log.close(); // recovery point 30: every batch was fsynced and may have been acknowledged
    flipByte(firstSegment(), 9L * BATCH + 100);

    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, oneBigSegment(), flusher));
    assertTrue(e.getMessage().contains("damaged at byte 1476 (offset 27)"), e.getMessage());
    assertEquals(10L * BATCH, Files.size(firstSegment()));
  }

  @Test
  void aMissingMiddleSegmentIsCorruption() throws Exception {
    ShardLog log = ShardLog.open(dir, smallSegments(), flusher);
    for (int i = 0; i < 20; i++) {
      log.appendAsLeader(1, 3, i, i, payload(i));
    }
    log.close();
    Files.delete(dir.resolve("00000000000000000018.log"));

    CorruptLogException e = assertThrows(CorruptLogException.class, () -> ShardLog.open(dir, smallSegments(), flusher));
    assertTrue(e.getMessage().contains("segment 00000000000000000036.log is damaged at byte 0 (offset 18): segment "
        + "starts at offset 36 but the previous one ends at 18"), e.getMessage());
  }

  @Test
  void epochFileIsRebuiltFromTheSegments() throws Exception {
    ShardLog log = ShardLog.open(dir, oneBigSegment(), flusher);
    log.appendAsLeader(1, 3, 0, 0, payload(0));
    log.appendAsLeader(4, 3, 0, 0, payload(1));
    log.close();
    Files.writeString(dir.resolve(EpochIndex.FILE_NAME), "1 0\n4 3\n9 6\n"); // an epoch whose batch never landed

    try (ShardLog reopened = ShardLog.open(dir, oneBigSegment(), flusher)) {
      assertEquals(List.of(new EpochStart(1, 0), new EpochStart(4, 3)), reopened.epochStarts());
      assertEquals("1 0\n4 3\n", new CheckpointFile(dir, EpochIndex.FILE_NAME).read().orElseThrow());
    }
  }
}
