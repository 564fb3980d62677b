package io.felix.broker.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.log.CompactionStep;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import io.felix.broker.log.SegmentName;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compaction over a real segmented log: it keeps exactly the newest entry of each key (and recent tombstones),
 * drops expired entries and old tombstones, never moves an offset, and a kill after any of its steps (the files as
 * they are on disk then, opened as a restarted broker opens them) leaves a log that reads the same values.
 */
class CacheCompactionTest {
  private static final long NOW = 1_000_000;
  private static final long TOMBSTONE_RETENTION = 10_000;

  @TempDir
  Path tmp;
  private final LogSettings settings = LogSettings.defaults().withSegmentBytes(2048).withIndexIntervalBytes(256);
  private FlushScheduler flusher;
  private final List<ShardLog> open = new ArrayList<>();

  @BeforeEach
  void start() {
    flusher = FlushScheduler.start(settings, "cache-compaction-test-flusher");
  }

  @AfterEach
  void stop() throws IOException {
    for (ShardLog log : open) {
      log.close();
    }
    flusher.close();
  }

  private ShardLog openLog(Path dir) throws IOException {
    ShardLog log = ShardLog.open(dir, settings, flusher);
    open.add(log);
    return log;
  }

  private static ByteString key(int k) {
    return ByteString.copyFromUtf8("key-" + k);
  }

  private static void append(ShardLog log, Record... entries) {
    log.appendAsLeader(1, entries.length, NOW, NOW, RecordLists.encode(List.of(entries)).asReadOnlyByteBuffer());
  }

  private static Record put(int k, String value, long at) {
    return CacheEntries.put(key(k), ByteString.copyFromUtf8(value), 0, at);
  }

  /**
   * Keys 0-9 overwritten five times; key 10 deleted long ago, key 11 deleted recently (both tombstones newest);
   * key 12 written with a TTL that has expired; key 13 deleted and then written again. Then filler entries of other
   * keys so that all of it lies in sealed segments.
   */
  private static void writeWorkload(ShardLog log) {
    for (int round = 0; round < 5; round++) {
      for (int k = 0; k < 10; k++) {
        append(log, put(k, "v" + round + "-" + k, NOW));
      }
    }
    append(log, put(10, "gone", NOW - 50_000), CacheEntries.delete(key(10), NOW - 50_000));
    append(log, put(11, "gone too", NOW - 1_000), CacheEntries.delete(key(11), NOW - 1_000));
    append(log, CacheEntries.put(key(12), ByteString.copyFromUtf8("expired"), 500, NOW - 2_000));
    append(log, put(13, "first", NOW), CacheEntries.delete(key(13), NOW), put(13, "again", NOW));
    for (int i = 0; i < 40; i++) {
      append(log, put(100 + i, "filler-" + i, NOW));
    }
  }

  private static CacheIndex fullIndex(ShardLog log) {
    CacheIndex index = CacheIndex.empty(log);
    index.catchUp(log, log.logEndOffset());
    return index;
  }

  /** What a reader gets for each key: the value, or null (absent, deleted or expired at NOW). */
  private static Map<Integer, String> readable(ShardLog log, CacheIndex index) {
    Map<Integer, String> values = new HashMap<>();
    for (int k : allKeys()) {
      values.put(k, index.lookup(log, key(k)).map(l -> l.record())
          .filter(r -> {
            long expires = CacheEntries.expiresAtMs(r, 0);
            return expires == 0 || expires > NOW;
          })
          .map(r -> r.getValue().toStringUtf8()).orElse(null));
    }
    return values;
  }

  private static List<Integer> allKeys() {
    List<Integer> keys = new ArrayList<>();
    for (int k = 0; k < 14; k++) {
      keys.add(k);
    }
    for (int k = 100; k < 140; k++) {
      keys.add(k);
    }
    return keys;
  }

  /** Every record of the log's sealed segments that is not a placeholder: offset -> record. */
  private static Map<Long, Record> survivors(ShardLog log) {
    Map<Long, Record> kept = new HashMap<>();
    List<Long> sealed = log.sealedSegmentBases();
    long end = log.segmentEnd(sealed.get(sealed.size() - 1));
    CacheIndex.forEachEntry(log, log.logStartOffset(), end, (offset, record) -> {
      if (!record.getKey().isEmpty()) {
        kept.put(offset, record);
      }
    });
    return kept;
  }

  @Test
  void keepsExactlyTheNewestEntryPerKeyAndRecentTombstonesAndNoOffsetMoves() throws IOException {
    ShardLog log = openLog(tmp.resolve("c-0"));
    writeWorkload(log);
    CacheIndex index = fullIndex(log);
    Map<Integer, String> before = readable(log, index);
    long end = log.logEndOffset();
    int sealed = log.sealedSegmentBases().size();
    assertTrue(sealed >= 3, "several sealed segments: " + sealed);

    CacheCompaction.Pass pass = new CacheCompaction(log, index, 0, TOMBSTONE_RETENTION).run(NOW, step -> { });
    assertTrue(pass.segmentsRewritten() >= 1, pass.toString());
    assertTrue(pass.bytesAfter() < pass.bytesBefore(), pass.toString());
    assertEquals(end, log.logEndOffset());
    assertEquals(sealed, log.sealedSegmentBases().size());

    // Exactly what should survive in the sealed segments: the newest put of each key that has not expired, and
    // key 11's recent tombstone; not the old puts, key 10's old tombstone, key 12's expired entry, key 13's delete.
    Map<String, Integer> keptPerKey = new HashMap<>();
    for (Record r : survivors(log).values()) {
      String name = r.getKey().toStringUtf8() + (CacheEntries.isTombstone(r) ? "/tombstone" : "");
      keptPerKey.merge(name, 1, Integer::sum);
    }
    Map<String, Integer> expected = new HashMap<>();
    for (int k : allKeys()) {
      if (k != 10 && k != 11 && k != 12) {
        expected.put("key-" + k, 1);
      }
    }
    expected.put("key-11/tombstone", 1);
    // The filler's last keys may lie in the active segment, which compaction leaves alone.
    CacheIndex after = fullIndex(log);
    for (int k = 100; k < 140; k++) {
      if (after.offsetOf(key(k)) >= log.segmentEnd(log.sealedSegmentBases().get(sealed - 1))) {
        expected.remove("key-" + k);
      }
    }
    assertEquals(expected, keptPerKey);
    assertEquals(-1, index.offsetOf(key(12)), "the expired key is forgotten by the index");
    assertEquals(before, readable(log, index));
    assertEquals(before, readable(log, index), "again, at the positions learned in the rewritten batches");
    assertEquals(before, readable(log, after));

    // A later pass drops key 11's tombstone once it is older than the retention; nothing else changes.
    new CacheCompaction(log, index, 0, TOMBSTONE_RETENTION).run(NOW + TOMBSTONE_RETENTION, step -> { });
    assertFalse(survivors(log).values().stream().anyMatch(CacheEntries::isTombstone));
    assertEquals(before, readable(log, fullIndex(log)));
  }

  @Test
  void aKillAfterAnyStepLeavesALogThatReadsTheSameValues() throws IOException {
    Path dir = tmp.resolve("c-0");
    ShardLog log = openLog(dir);
    writeWorkload(log);
    CacheIndex index = fullIndex(log);
    Map<Integer, String> before = readable(log, index);
    long end = log.logEndOffset();
    long firstSealed = log.sealedSegmentBases().get(0);
    Map<CompactionStep, Path> killedAfter = new EnumMap<>(CompactionStep.class);
    new CacheCompaction(log, index, 0, TOMBSTONE_RETENTION).run(NOW, step -> {
      if (!killedAfter.containsKey(step)) { // the first segment's rewrite
        Path copy = tmp.resolve("killed-after-" + step);
        copyFiles(dir, copy);
        killedAfter.put(step, copy);
      }
    });
    assertEquals(List.of(CompactionStep.values()), List.copyOf(killedAfter.keySet()));
    assertTrue(Files.exists(killedAfter.get(CompactionStep.CLEANED_WRITTEN)
        .resolve(new SegmentName(firstSealed).logFileName() + ShardLog.CLEANED_SUFFIX)));
    assertFalse(Files.exists(killedAfter.get(CompactionStep.SWAPPED)
        .resolve(new SegmentName(firstSealed).indexFileName())));

    for (Map.Entry<CompactionStep, Path> killed : killedAfter.entrySet()) {
      ShardLog restarted = openLog(killed.getValue());
      assertEquals(end, restarted.logEndOffset(), "log end after a kill after " + killed.getKey());
      CacheIndex replayed = fullIndex(restarted);
      assertEquals(before, readable(restarted, replayed), "values after a kill after " + killed.getKey());
      // A compaction after the restart finishes the job (and removes a leftover rewrite).
      new CacheCompaction(restarted, replayed, 0, TOMBSTONE_RETENTION).run(NOW, step -> { });
      assertEquals(before, readable(restarted, fullIndex(restarted)), "after compacting again: " + killed.getKey());
      try (Stream<Path> files = Files.list(killed.getValue())) {
        assertFalse(files.anyMatch(f -> f.toString().endsWith(ShardLog.CLEANED_SUFFIX)), killed.getKey().name());
      }
    }
  }

  private static void copyFiles(Path from, Path to) {
    try {
      Files.createDirectories(to);
      try (Stream<Path> files = Files.list(from)) {
        for (Path f : files.toList()) {
          if (!f.getFileName().toString().equals(".lock")) {
            Files.copy(f, to.resolve(f.getFileName()));
          }
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
