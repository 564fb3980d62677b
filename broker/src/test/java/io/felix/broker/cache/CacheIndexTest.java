package io.felix.broker.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The cache index over a real segmented log: committed entries only, checkpoint plus tail equals a full replay. */
class CacheIndexTest {
  @TempDir
  Path tmp;
  private final LogSettings settings = LogSettings.defaults().withSegmentBytes(4096).withIndexIntervalBytes(512);
  private FlushScheduler flusher;
  private ShardLog log;

  @BeforeEach
  void open() throws IOException {
    flusher = FlushScheduler.start(settings, "cache-index-test-flusher");
    log = ShardLog.open(tmp.resolve("c-0"), settings, flusher);
  }

  @AfterEach
  void close() throws IOException {
    log.close();
    flusher.close();
  }

  private static ByteString key(int k) {
    return ByteString.copyFromUtf8("key-" + k);
  }

  /** Appends a batch of entries; returns its base offset. */
  private long append(List<Record> entries) {
    ByteBuffer payload = RecordLists.encode(entries).asReadOnlyByteBuffer();
    return log.appendAsLeader(1, entries.size(), 1000, 1000, payload);
  }

  private static Record put(int k, String value) {
    return CacheEntries.put(key(k), ByteString.copyFromUtf8(value), 0, 1000);
  }

  private String valueOf(CacheIndex index, int k) {
    return index.lookup(log, key(k)).map(l -> l.record().getValue().toStringUtf8()).orElse(null);
  }

  /** Writes 200 keys with overwrites and deletes over several segments; returns key -> expected newest value. */
  private Map<Integer, String> writeEntries(int round) {
    Map<Integer, String> expected = new HashMap<>();
    for (int b = 0; b < 40; b++) {
      List<Record> batch = new java.util.ArrayList<>();
      for (int i = 0; i < 5; i++) {
        int k = (b * 5 + i * 7 + round) % 60;
        if ((b + i) % 9 == 0) {
          batch.add(CacheEntries.delete(key(k), 1000));
          expected.put(k, null);
        } else {
          String v = "r" + round + "-b" + b + "-i" + i;
          batch.add(put(k, v));
          expected.put(k, v);
        }
      }
      append(batch);
    }
    return expected;
  }

  @Test
  void anEntryAboveTheCommitOffsetIsNotVisibleTheKeysPreviousCommittedEntryIs() {
    append(List.of(put(1, "old")));
    long commit = log.logEndOffset();
    append(List.of(put(1, "new"), put(2, "only-uncommitted")));
    CacheIndex index = CacheIndex.empty(log);
    index.catchUp(log, commit);
    assertEquals("old", valueOf(index, 1));
    assertEquals(null, valueOf(index, 2));
    index.catchUp(log, log.logEndOffset());
    assertEquals("new", valueOf(index, 1));
    assertEquals("only-uncommitted", valueOf(index, 2));
    append(List.of(CacheEntries.delete(key(1), 1000)));
    index.catchUp(log, log.logEndOffset());
    assertEquals(null, valueOf(index, 1));
    assertEquals(1, index.size());
  }

  @Test
  void checkpointPlusTailEqualsAFullReplayAfterAReopen() throws IOException {
    Map<Integer, String> expected = writeEntries(0);
    CacheIndex leaderIndex = CacheIndex.empty(log);
    leaderIndex.catchUp(log, log.logEndOffset());
    long checkpointAt = leaderIndex.indexedTo();
    CacheIndexCheckpoint.write(log.directory(), leaderIndex);
    expected.putAll(writeEntries(1)); // the tail after the checkpoint
    assertTrue(log.segmentCount() > 2, "the entries span several segments");
    log.close();
    log = ShardLog.open(tmp.resolve("c-0"), settings, flusher);

    CacheIndex checkpointed = CacheIndexCheckpoint.read(log.directory(), log).orElseThrow();
    assertEquals(checkpointAt, checkpointed.indexedTo());
    CacheIndex rebuilt = CacheIndexCheckpoint.rebuild(log.directory(), log, log.logEndOffset());
    CacheIndex replayed = CacheIndex.empty(log);
    replayed.catchUp(log, log.logEndOffset());
    assertEquals(log.logEndOffset(), rebuilt.indexedTo());
    assertEquals(replayed.snapshot(), rebuilt.snapshot());
    for (Map.Entry<Integer, String> e : expected.entrySet()) {
      assertEquals(e.getValue(), valueOf(rebuilt, e.getKey()), "key " + e.getKey());
    }
    assertEquals(expected.values().stream().filter(v -> v != null).count(), rebuilt.size());
  }

  /**
   * Entries read alone at the position the index keeps (as indexed, or learned at a first read after a checkpoint
   * load, which holds offsets only) are the entries read out of their whole batch: large batches, values smaller
   * and larger than the first read of an entry (4 KiB).
   */
  @Test
  void anEntryReadAtItsPositionInItsBatchIsTheEntryOfThatOffset() throws IOException {
    log.close();
    log = ShardLog.open(tmp.resolve("c-1"), LogSettings.defaults().withSegmentBytes(1 << 20), flusher);
    Map<Integer, String> expected = new HashMap<>();
    for (int b = 0; b < 4; b++) {
      List<Record> batch = new java.util.ArrayList<>();
      for (int i = 0; i < 50; i++) {
        int k = b * 50 + i;
        String value = k + ":" + "v".repeat(k % 7 == 0 ? 6000 : 10 + k);
        batch.add(put(k, value));
        expected.put(k, value);
      }
      append(batch);
    }
    CacheIndex indexed = CacheIndex.empty(log);
    indexed.catchUp(log, log.logEndOffset());
    CacheIndexCheckpoint.write(log.directory(), indexed);
    CacheIndex loaded = CacheIndexCheckpoint.read(log.directory(), log).orElseThrow();
    for (int round = 0; round < 2; round++) { // the loaded index learns each position at its first read
      for (Map.Entry<Integer, String> e : expected.entrySet()) {
        assertEquals(e.getValue(), valueOf(indexed, e.getKey()), "indexed, key " + e.getKey());
        assertEquals(e.getValue(), valueOf(loaded, e.getKey()), "loaded, round " + round + ", key " + e.getKey());
        assertEquals(indexed.offsetOf(key(e.getKey())), loaded.lookup(log, key(e.getKey())).orElseThrow().offset());
      }
    }
  }

  @Test
  void aDamagedOrForeignCheckpointIsIgnoredAndTheWholeLogReplayed() throws IOException {
    writeEntries(0);
    CacheIndex index = CacheIndex.empty(log);
    index.catchUp(log, log.logEndOffset());
    CacheIndexCheckpoint.write(log.directory(), index);
    Path file = log.directory().resolve(CacheIndexCheckpoint.FILE_NAME);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 0x40;
    Files.write(file, bytes);
    assertFalse(CacheIndexCheckpoint.read(log.directory(), log).isPresent());
    CacheIndex rebuilt = CacheIndexCheckpoint.rebuild(log.directory(), log, log.logEndOffset());
    assertEquals(index.snapshot(), rebuilt.snapshot());

    // A checkpoint beyond the log's end (the replica lost its log since) is not used either.
    CacheIndexCheckpoint.write(log.directory(), index);
    log.truncateTo(0);
    assertFalse(CacheIndexCheckpoint.read(log.directory(), log).isPresent());
  }

  @Test
  void anEntryExpiresByItsOwnTtlOrTheCachesDefault() {
    Record own = CacheEntries.put(key(1), ByteString.copyFromUtf8("v"), 500, 10_000);
    Record plain = put(2, "w");
    assertEquals(10_500, CacheEntries.expiresAtMs(own, 0));
    assertEquals(10_500, CacheEntries.expiresAtMs(own, 60_000));
    assertEquals(0, CacheEntries.expiresAtMs(plain, 0));
    assertEquals(1000 + 60_000, CacheEntries.expiresAtMs(plain, 60_000));
  }
}
