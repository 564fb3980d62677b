package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static io.felix.broker.log.ShardLogTest.appendBatches;
import static io.felix.broker.log.ShardLogTest.files;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Retention on a multi-segment log. Twenty 3-record batches with timestamps 1000 + i make sealed segments at 0
 * (batches 0-5, newest timestamp 1005), 18 (up to 1011) and 36 (up to 1017), 888 bytes each, and the active segment
 * at 54 (296 bytes). Time is passed in, so the tests control the clock.
 */
class RetentionTest {
  private static final long NONE = RetentionSettings.UNLIMITED;

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

  private ShardLog openLog(LogSettings settings) throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve("a"), settings, flusher);
    open.add(log);
    return log;
  }

  private ShardLog twentyBatches() throws IOException {
    ShardLog log = openLog(smallSegments());
    appendBatches(log, 1, 0, 14);
    appendBatches(log, 2, 14, 6); // epoch 2 starts at offset 42, in the third segment
    return log;
  }

  @Test
  void deletesSealedSegmentsWhoseNewestRecordIsOlderThanTheRetentionTime() throws IOException {
    ShardLog log = twentyBatches();

    assertEquals(0, log.deleteSegmentsPastRetention(100, NONE, 1105, 60)); // 1105 - 1005 is not past 100 ms
    assertEquals(36, log.deleteSegmentsPastRetention(100, NONE, 1112, 60)); // 107 and 101 ms old; 95 is kept

    assertEquals(List.of("00000000000000000036.log", "00000000000000000054.log"), files(log.directory()));
    assertEquals(36, log.logStartOffset());
    OffsetOutOfRangeException below = assertThrows(OffsetOutOfRangeException.class, () -> log.read(35, 1000));
    assertEquals(36, below.logStartOffset());
    assertEquals(36, log.read(36, 1).decoder().next().baseOffset());
    assertEquals(List.of(new EpochStart(1, 36), new EpochStart(2, 42)), log.epochStarts());
  }

  @Test
  void deletesTheOldestSegmentsWhileTheLogIsLargerThanTheLimitWithoutThem() throws IOException {
    ShardLog log = twentyBatches(); // 2960 bytes

    assertEquals(18, log.deleteSegmentsPastRetention(NONE, 1500, 0, 60)); // 2072 >= 1500, then 1184 < 1500
    assertEquals(18, log.deleteSegmentsPastRetention(NONE, 1500, 0, 60));
    assertEquals(54, log.deleteSegmentsPastRetention(NONE, 0, 0, 60)); // never the active segment
    assertEquals(List.of("00000000000000000054.log"), files(log.directory()));
    assertEquals(List.of(new EpochStart(2, 54)), log.epochStarts());
    assertEquals(60, log.appendAsLeader(2, 3, 2000, 2000, payload(20)));
  }

  @Test
  void neverDeletesASegmentHoldingOffsetsAtOrAfterTheCommitOffset() throws IOException {
    ShardLog log = twentyBatches();

    assertEquals(0, log.deleteSegmentsPastRetention(1, 0, 1_000_000, 17)); // segment 0 holds offset 17
    assertEquals(18, log.deleteSegmentsPastRetention(1, 0, 1_000_000, 35));
    assertEquals(36, log.deleteSegmentsPastRetention(1, 0, 1_000_000, 36));
  }

  @Test
  void theStartOffsetSurvivesARestartBecauseItIsTheFirstSegmentOnDisk() throws IOException {
    for (LogSettings.VerifyOnOpen verify : LogSettings.VerifyOnOpen.values()) {
      ShardLog log = twentyBatches();
      log.deleteSegmentsPastRetention(NONE, 1500, 0, 60);
      log.close();
      open.remove(log);

      ShardLog reopened = openLog(smallSegments().withVerifyOnOpen(verify));
      assertEquals(18, reopened.logStartOffset(), verify.name());
      assertEquals(60, reopened.logEndOffset(), verify.name());
      assertEquals(List.of(new EpochStart(1, 18), new EpochStart(2, 42)), reopened.epochStarts(), verify.name());
      assertThrows(OffsetOutOfRangeException.class, () -> reopened.read(17, 1000));
      assertEquals(18, reopened.read(18, 1).decoder().next().baseOffset());
      reopened.deleteAll();
      open.remove(reopened);
    }
  }

  @Test
  void aFollowerBehindTheLeadersStartDropsItsLogAndStartsAgainThere() throws IOException {
    ShardLog log = twentyBatches();

    log.restartAt(100);
    assertEquals(100, log.logStartOffset());
    assertEquals(100, log.logEndOffset());
    assertEquals(100, log.storedOffset());
    assertEquals(-1, log.lastEpoch());
    assertEquals(List.of("00000000000000000100.log"), files(log.directory()));
    assertEquals(100, log.appendAsLeader(3, 3, 2000, 2000, payload(1)));
    assertThrows(IllegalArgumentException.class, () -> log.restartAt(103));
    log.close();
    open.remove(log);

    ShardLog reopened = openLog(smallSegments());
    assertEquals(100, reopened.logStartOffset());
    assertEquals(103, reopened.logEndOffset());
    assertEquals(List.of(new EpochStart(3, 100)), reopened.epochStarts());
  }

  @Test
  void aStreamsSegmentSizeDecidesWhenTheActiveSegmentRolls() throws IOException {
    ShardLog log = openLog(smallSegments());
    log.rollAt(400); // two 148-byte batches per segment instead of six
    appendBatches(log, 1, 0, 5);
    assertEquals(List.of("00000000000000000000.log", "00000000000000000006.log", "00000000000000000012.log"),
        files(log.directory()));
    assertThrows(IllegalArgumentException.class, () -> log.rollAt(10));
  }
}
