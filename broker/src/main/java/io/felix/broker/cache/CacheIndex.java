package io.felix.broker.cache;

import com.google.protobuf.ByteString;
import io.felix.broker.log.LogBatch;
import io.felix.broker.log.LogRead;
import io.felix.broker.log.ShardLog;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A cache shard replica's index: each key to the OFFSET of its newest committed entry (a tombstone removes the key)
 * and, when known, the byte position of the entry's record within its batch's payload, packed in one long. Values
 * stay in the log (and the page cache): a read with a known position reads just the entry's bytes; without one
 * (after loading a checkpoint, which holds offsets only, or after compaction rewrote the entry's batch) it reads
 * the whole batch, finds the record by its index and learns the position. Offsets, not file positions, so that
 * rewriting segments (compaction keeps offsets) never makes an entry unreachable.
 *
 * <p>Only committed entries are indexed ({@link #catchUp} is given the commit offset): an entry above it is not
 * visible, the key's previous committed entry is. Not thread-safe: owned by the replica's actor.
 *
 * <p>Memory per key (64-bit JVM, compressed oops): a HashMap node (32 bytes) and its table slot (4-8), the key's
 * ByteString (24) and byte array (16 + the key, rounded up to 8), the boxed packed value (16): about 96 bytes plus
 * the key's length. Offsets up to 2^43 - 1 fit beside a position.
 */
public final class CacheIndex {
  /** Bytes read from the log per step of a catch-up. */
  private static final int READ_BYTES = 1 << 20;
  /** Low bits of a packed value: the entry's position in its batch's payload; all ones: not known. */
  private static final int POSITION_BITS = 20;
  private static final int UNKNOWN_POSITION = (1 << POSITION_BITS) - 1;
  private static final long MAX_OFFSET = Long.MAX_VALUE >>> POSITION_BITS;
  /** Bytes read first for an entry at a known position: a 1 KiB entry and its framing in one read. */
  private static final int ENTRY_READ_BYTES = 4096;

  /** Key to packed (offset, position) of its newest committed entry. */
  private final Map<ByteString, Long> entries;
  private long indexedTo;
  private boolean changedSinceCheckpoint;

  private CacheIndex(Map<ByteString, Long> entries, long indexedTo) {
    this.entries = entries;
    this.indexedTo = indexedTo;
  }

  /** An empty index of a log to be replayed from its start. */
  public static CacheIndex empty(ShardLog log) {
    return new CacheIndex(new HashMap<>(), log.logStartOffset());
  }

  /** An index of entries below {@code indexedTo} to be filled from a checkpoint with {@link #load}. */
  static CacheIndex loading(int keys, long indexedTo) {
    return new CacheIndex(new HashMap<>(Math.max(16, keys * 4 / 3 + 1)), indexedTo);
  }

  /** A checkpointed key and offset (its position in the batch is learned at its first read). */
  void load(ByteString key, long offset) {
    entries.put(key, pack(offset, UNKNOWN_POSITION));
  }

  private static long pack(long offset, int position) {
    if (offset < 0 || offset > MAX_OFFSET) {
      throw new IllegalStateException("offset " + offset + " is beyond what a cache index holds (2^43 - 1)");
    }
    int placed = position >= 0 && position < UNKNOWN_POSITION ? position : UNKNOWN_POSITION;
    return offset << POSITION_BITS | placed;
  }

  private static long offsetIn(long packed) {
    return packed >>> POSITION_BITS;
  }

  private static int positionIn(long packed) {
    return (int) (packed & UNKNOWN_POSITION);
  }

  /** Entries below this offset are indexed. */
  public long indexedTo() {
    return indexedTo;
  }

  public int size() {
    return entries.size();
  }

  /** Indexes the log's entries from {@link #indexedTo} up to {@code upTo} (the commit offset). */
  public void catchUp(ShardLog log, long upTo) {
    long limit = Math.min(upTo, log.logEndOffset());
    if (indexedTo < log.logStartOffset()) {
      indexedTo = log.logStartOffset(); // a follower log restarted at its leader's start: nothing below it exists
    }
    while (indexedTo < limit) {
      LogRead read = log.read(indexedTo, READ_BYTES, limit);
      if (read.isEmpty()) {
        return; // the next batch ends above the limit: it is not committed yet
      }
      for (var batches = read.decoder(); batches.hasNext(); ) {
        apply(batches.next());
      }
      indexedTo = read.nextOffset();
    }
  }

  private void apply(LogBatch batch) {
    if (batch.payloadLength() == 0) {
      return; // an epoch marker
    }
    CacheEntries.forEachRecord(batch.payload(), (i, position, record) -> {
      long offset = batch.baseOffset() + i;
      if (offset < indexedTo) {
        return; // the first batch read may start before the offset asked for
      }
      if (CacheEntries.isTombstone(record)) {
        entries.remove(record.getKey());
      } else {
        entries.put(record.getKey(), pack(offset, position));
      }
      changedSinceCheckpoint = true;
    });
  }

  /** The key's newest committed entry and its offset; empty when it has none or it was deleted. */
  public Optional<Located> lookup(ShardLog log, ByteString key) {
    Long packed = entries.get(key);
    if (packed == null) {
      return Optional.empty();
    }
    long offset = offsetIn(packed);
    Record record = positionIn(packed) == UNKNOWN_POSITION ? null : readPlaced(log, offset, positionIn(packed), key);
    if (record == null) {
      record = readFromBatch(log, key, offset);
    }
    // Absent or another key: compaction blanked the entry (it had expired).
    return record == null || !record.getKey().equals(key) ? Optional.empty()
        : Optional.of(new Located(offset, record));
  }

  /** The entry's record read alone at its known place; null when the bytes there are not the key's record. */
  private static Record readPlaced(ShardLog log, long offset, int position, ByteString key) {
    ByteBuffer bytes = log.readPayloadBytes(offset, position, ENTRY_READ_BYTES);
    int needed = CacheEntries.recordFieldLength(bytes);
    if (needed > bytes.remaining()) {
      bytes = log.readPayloadBytes(offset, position, needed);
    }
    if (needed < 0 || needed > bytes.remaining()) {
      return null;
    }
    Record record = CacheEntries.recordField(bytes);
    return record.getKey().equals(key) ? record : null;
  }

  /** The entry's record found in its whole batch; its position is remembered for the next read. */
  private Record readFromBatch(ShardLog log, ByteString key, long offset) {
    LogRead read = log.read(offset, 1, indexedTo);
    if (read.isEmpty()) {
      throw new IllegalStateException("cache index of " + log.directory() + " points at offset " + offset
          + " which the log does not return");
    }
    LogBatch batch = read.decoder().next();
    ByteBuffer payload = batch.payload();
    int position = CacheEntries.recordPosition(payload, (int) (offset - batch.baseOffset()));
    if (position < 0) {
      return null;
    }
    ByteBuffer field = payload.duplicate();
    field.position(field.position() + position);
    Record record = CacheEntries.recordField(field);
    if (record.getKey().equals(key)) {
      entries.put(key, pack(offset, position)); // not a change the checkpoint holds: it keeps offsets only
    }
    return record;
  }

  /** The offset of the key's newest committed entry, -1 when it has none (never written, deleted, expired). */
  public long offsetOf(ByteString key) {
    Long packed = entries.get(key);
    return packed == null ? -1 : offsetIn(packed);
  }

  /** Compaction dropped the key's newest entry because it expired: the key has no entry any more. */
  void forgetExpired(ByteString key) {
    entries.remove(key);
  }

  /** Compaction rewrote the batch of the key's newest entry: its record may sit elsewhere in the payload now. */
  void forgetPosition(ByteString key) {
    entries.computeIfPresent(key, (k, packed) -> pack(offsetIn(packed), UNKNOWN_POSITION));
  }

  /** Calls {@code visitor} with every record of the log in {@code [from, to)} and its offset. */
  static void forEachEntry(ShardLog log, long from, long to, java.util.function.BiConsumer<Long, Record> visitor) {
    long at = from;
    while (at < to) {
      LogRead read = log.read(at, READ_BYTES, to);
      if (read.isEmpty()) {
        return;
      }
      for (var batches = read.decoder(); batches.hasNext(); ) {
        LogBatch batch = batches.next();
        if (batch.payloadLength() == 0) {
          continue;
        }
        var records = RecordLists.decode(ByteString.copyFrom(batch.payload().duplicate())).getRecordsList();
        for (int i = 0; i < records.size(); i++) {
          if (batch.baseOffset() + i >= from) {
            visitor.accept(batch.baseOffset() + i, records.get(i));
          }
        }
      }
      at = read.nextOffset();
    }
  }

  /** A found entry. */
  public record Located(long offset, Record record) {}

  /** Each key with the offset of its newest committed entry (what a checkpoint holds). */
  void forEachOffset(java.util.function.BiConsumer<ByteString, Long> visitor) {
    entries.forEach((key, packed) -> visitor.accept(key, offsetIn(packed)));
  }

  /** Whether entries were indexed since the last checkpoint was written. */
  public boolean changedSinceCheckpoint() {
    return changedSinceCheckpoint;
  }

  void checkpointed() {
    changedSinceCheckpoint = false;
  }

  /** What a full replay of the log gives, for comparisons (tests) and logs: key to offset. */
  public Map<ByteString, Long> snapshot() {
    Map<ByteString, Long> offsets = new HashMap<>();
    forEachOffset(offsets::put);
    return Map.copyOf(offsets);
  }
}
