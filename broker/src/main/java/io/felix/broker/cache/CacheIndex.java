package io.felix.broker.cache;

import com.google.protobuf.ByteString;
import io.felix.broker.log.LogBatch;
import io.felix.broker.log.LogRead;
import io.felix.broker.log.ShardLog;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A cache shard leader's index: each key to the OFFSET of its newest committed entry (a tombstone removes the key).
 * Values stay in the log (and the page cache); a read looks the record up by offset. Offsets, not file positions,
 * so that rewriting segments (compaction keeps offsets) never invalidates it.
 *
 * <p>Only committed entries are indexed ({@link #catchUp} is given the commit offset): an entry above it is not
 * visible, the key's previous committed entry is. Not thread-safe: owned by the leader's actor.
 *
 * <p>Memory per key (64-bit JVM, compressed oops): a HashMap node (32 bytes) and its table slot (4-8), the key's
 * ByteString (24) and byte array (16 + the key, rounded up to 8), the boxed offset (16): about 96 bytes plus the
 * key's length.
 */
public final class CacheIndex {
  /** Bytes read from the log per step of a catch-up. */
  private static final int READ_BYTES = 1 << 20;

  private final Map<ByteString, Long> offsets;
  private long indexedTo;
  private boolean changedSinceCheckpoint;

  CacheIndex(Map<ByteString, Long> offsets, long indexedTo) {
    this.offsets = offsets;
    this.indexedTo = indexedTo;
  }

  /** An empty index of a log to be replayed from its start. */
  public static CacheIndex empty(ShardLog log) {
    return new CacheIndex(new HashMap<>(), log.logStartOffset());
  }

  /** Entries below this offset are indexed. */
  public long indexedTo() {
    return indexedTo;
  }

  public int size() {
    return offsets.size();
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
    var records = RecordLists.decode(ByteString.copyFrom(batch.payload().duplicate())).getRecordsList();
    for (int i = 0; i < records.size(); i++) {
      long offset = batch.baseOffset() + i;
      if (offset < indexedTo) {
        continue; // the first batch read may start before the offset asked for
      }
      Record record = records.get(i);
      if (CacheEntries.isTombstone(record)) {
        offsets.remove(record.getKey());
      } else {
        offsets.put(record.getKey(), offset);
      }
      changedSinceCheckpoint = true;
    }
  }

  /** The key's newest committed entry and its offset; empty when it has none or it was deleted. */
  public Optional<Located> lookup(ShardLog log, ByteString key) {
    Long offset = offsets.get(key);
    if (offset == null) {
      return Optional.empty();
    }
    LogRead read = log.read(offset, 1, indexedTo);
    if (read.isEmpty()) {
      throw new IllegalStateException("cache index of " + log.directory() + " points at offset " + offset
          + " which the log does not return");
    }
    LogBatch batch = read.decoder().next();
    return CacheEntries.recordAt(batch.payload(), (int) (offset - batch.baseOffset()))
        .filter(record -> record.getKey().equals(key)) // compaction blanked it (it had expired)
        .map(record -> new Located(offset, record));
  }

  /** The offset of the key's newest committed entry, -1 when it has none (never written, deleted, expired). */
  public long offsetOf(ByteString key) {
    return offsets.getOrDefault(key, -1L);
  }

  /** Compaction dropped the key's newest entry because it expired: the key has no entry any more. */
  void forgetExpired(ByteString key) {
    offsets.remove(key);
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

  Map<ByteString, Long> offsets() {
    return offsets;
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
    return Map.copyOf(offsets);
  }
}
