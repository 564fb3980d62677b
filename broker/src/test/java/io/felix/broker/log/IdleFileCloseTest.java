package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.BATCH;
import static io.felix.broker.log.LogTestSupport.bytes;
import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A log idle for {@code idle-file-close} closes its files and opens them again on its next append or read, with an
 * injected clock, real files and the descriptors counted in {@code /proc/self/fd}.
 */
class IdleFileCloseTest {
  static final Duration IDLE = Duration.ofSeconds(60);

  @TempDir
  Path tmp;
  final AtomicLong clock = new AtomicLong(1_000_000_000L);
  FlushScheduler flusher;
  final List<ShardLog> logs = new ArrayList<>();

  @BeforeEach
  void setUp() {
    flusher = FlushScheduler.start(settings(), "idle-test-flusher", clock::get);
  }

  @AfterEach
  void tearDown() throws IOException {
    for (ShardLog log : logs) {
      log.close();
    }
    flusher.close();
  }

  static LogSettings settings() {
    return smallSegments().withIdleFileClose(IDLE).withVerifyOnOpen(LogSettings.VerifyOnOpen.UNFLUSHED);
  }

  ShardLog open(String name) throws IOException {
    ShardLog log = ShardLog.open(tmp.resolve(name), settings(), flusher);
    logs.add(log);
    return log;
  }

  void advance(Duration by) {
    clock.addAndGet(by.toNanos());
  }

  static void appendAndStore(ShardLog log, int batches) throws Exception {
    long end = 0;
    for (int i = 0; i < batches; i++) {
      end = log.appendAsLeader(1, 3, i, i, payload((int) log.logEndOffset())) + 3;
    }
    log.awaitDurable(end).toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  static long openDescriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return fds.count();
    }
  }

  @Test
  void aNewLogHoldsNoDescriptorUntilItsFirstAppend() throws Exception {
    ShardLog log = open("new");
    assertEquals(0, log.openFiles());
    assertEquals(0, Files.size(tmp.resolve("new").resolve("00000000000000000000.log")), "created empty by the open");
    log.close();
    log = open("new"); // reopened before any append: still new, nothing to scan or hold
    assertEquals(0, log.openFiles());
    appendAndStore(log, 1);
    assertEquals(1, log.openFiles());
    assertEquals(BATCH, Files.size(tmp.resolve("new").resolve("00000000000000000000.log")));
    assertEquals(1024, Files.size(tmp.resolve("new").resolve(EpochIndex.FILE_NAME)), "its epoch written in place");
  }

  @Test
  void closesAfterIdleAndTheDescriptorCountDrops() throws Exception {
    List<ShardLog> busy = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      ShardLog log = open("log-" + i);
      appendAndStore(log, 8); // two segments: the sealed one is not open, the active one is
      busy.add(log);
    }
    long before = openDescriptors();
    busy.forEach(log -> assertEquals(1, log.openFiles()));

    advance(IDLE.minusSeconds(1));
    assertEquals(0, flusher.closeIdleFiles(), "not idle long enough");
    advance(Duration.ofSeconds(1));
    assertEquals(20, flusher.closeIdleFiles());

    busy.forEach(log -> assertEquals(0, log.openFiles()));
    long after = openDescriptors(); // the process's: other threads may open or close a file meanwhile
    assertTrue(after <= before - 19, before + " descriptors before, " + after + " after");
    assertEquals(0, flusher.closeIdleFiles(), "already closed: nothing more to do");
  }

  @Test
  void reopensOnAppendAndNothingIsLostAcrossCloseAndReopen() throws Exception {
    ShardLog log = open("a");
    appendAndStore(log, 8);
    List<byte[]> written = readAll(log);
    advance(IDLE);
    assertEquals(1, flusher.closeIdleFiles());
    assertEquals(0, log.openFiles());

    appendAndStore(log, 3); // opens the active segment again, appends at its end, fsyncs through the new descriptor
    assertEquals(1, log.openFiles());
    assertEquals(33, log.logEndOffset());
    assertEquals(33, log.durableOffset());
    List<byte[]> now = readAll(log);
    assertEquals(11, now.size());
    for (int i = 0; i < written.size(); i++) {
      assertArrayEquals(written.get(i), now.get(i));
    }
    log.close();
    logs.remove(log);
    try (ShardLog reopened = ShardLog.open(tmp.resolve("a"), settings(), flusher)) {
      assertEquals(33, reopened.logEndOffset());
      List<byte[]> afterRestart = readAll(reopened);
      for (int i = 0; i < now.size(); i++) {
        assertArrayEquals(now.get(i), afterRestart.get(i));
      }
    }
  }

  @Test
  void reopensOnReadOfASealedOrTheActiveSegment() throws Exception {
    ShardLog log = open("a");
    appendAndStore(log, 8); // batches 0..5 in segment 0 (sealed), 6..7 in segment 18
    advance(IDLE);
    assertEquals(1, flusher.closeIdleFiles());

    LogBatch first = log.read(0, 1).decoder().next(); // the sealed segment: its file and its index file again
    assertEquals(0, first.baseOffset());
    assertArrayEquals(bytes(payload(0)), bytes(first.payload()));
    assertEquals(1, log.openFiles());
    assertEquals(21, log.read(21, 1).decoder().next().baseOffset()); // the active one
    assertEquals(2, log.openFiles());

    advance(IDLE.minusSeconds(1));
    assertEquals(0, flusher.closeIdleFiles(), "the reads made it busy again");
    advance(Duration.ofSeconds(1));
    assertEquals(1, flusher.closeIdleFiles());
    assertEquals(0, log.openFiles());
  }

  @Test
  void aLogWithUnflushedDataIsNotClosedBeforeItsFsync() throws Exception {
    LogSettings interval = settings().withFlush(LogSettings.Flush.INTERVAL, Duration.ofHours(1)); // no tick comes
    try (FlushScheduler slow = FlushScheduler.start(interval, "idle-test-slow", clock::get);
        ShardLog log = ShardLog.open(tmp.resolve("slow"), interval, slow)) {
      log.appendAsLeader(1, 3, 0, 0, payload(0));
      assertEquals(0, log.durableOffset());
      advance(IDLE.multipliedBy(2));
      assertEquals(0, slow.closeIdleFiles(), "3 records are not fsynced yet");
      assertEquals(1, log.openFiles());
      log.close(); // a clean close fsyncs them
      assertEquals(3, log.durableOffset());
    }
  }

  @Test
  void theIdleCloseMovesTheRecoveryPointSoACrashLaterCostsNoRecovery() throws Exception {
    ShardLog log = open("a");
    appendAndStore(log, 8);
    assertEquals("18 18 0", new CheckpointFile(tmp.resolve("a"), ShardLog.RECOVERY_POINT).read().orElseThrow()); // at the roll
    advance(IDLE);
    assertEquals(1, flusher.closeIdleFiles());
    assertEquals("24 18 328", new CheckpointFile(tmp.resolve("a"), ShardLog.RECOVERY_POINT).read().orElseThrow());
    log.closeAsIfCrashed();
    logs.remove(log);

    // Damage before the recovery point is not read on open (unflushed): proof that the open trusted it.
    LogRecoveryTest.flipByte(tmp.resolve("a").resolve("00000000000000000018.log"), 70);
    try (ShardLog reopened = ShardLog.open(tmp.resolve("a"), settings(), flusher)) {
      assertEquals(24, reopened.logEndOffset());
      assertEquals(0, reopened.openFiles());
      assertEquals(List.of(new EpochStart(1, 0)), reopened.epochStarts());
    }
  }

  @Test
  void idleCloseIsOffWithZero() throws Exception {
    LogSettings never = settings().withIdleFileClose(Duration.ZERO);
    try (FlushScheduler keep = FlushScheduler.start(never, "idle-test-never", clock::get);
        ShardLog log = ShardLog.open(tmp.resolve("kept"), never, keep)) {
      appendAndStore(log, 1);
      advance(Duration.ofDays(1));
      assertEquals(0, keep.closeIdleFiles());
      assertEquals(1, log.openFiles());
    }
  }

  @Test
  void aClosedLogLeavesTheSweep() throws Exception {
    ShardLog log = open("a");
    assertEquals(1, flusher.openLogs());
    log.close();
    logs.remove(log);
    assertEquals(0, flusher.openLogs());
    assertFalse(log.closeFilesIfIdle(Long.MAX_VALUE, 0));
  }

  static List<byte[]> readAll(ShardLog log) {
    List<byte[]> out = new ArrayList<>();
    for (long o = log.logStartOffset(); o < log.logEndOffset(); ) {
      LogRead read = log.read(o, 1);
      out.add(bytes(read.batches()));
      o = read.nextOffset();
    }
    return out;
  }
}
