package io.felix.broker.cache;

import com.google.protobuf.ByteString;
import io.felix.broker.log.CompactionStep;
import io.felix.broker.log.LogBatch;
import io.felix.broker.log.ShardLog;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The cache's log cleaner (as Kafka's): rewrites each sealed segment whose entries are all indexed (committed),
 * keeping the newest entry of each key, a key's newest tombstone for {@code tombstoneRetentionMs} after it was
 * written, and dropping expired entries. Offsets never move: a dropped entry becomes an empty placeholder record in
 * its batch (2 bytes), so the index's offsets, the epochs, the producers' sequences and followers' positions stay
 * valid. The segment swap is crash-safe ({@link ShardLog#rewriteSealedSegment}). Runs on the leader, which has the
 * index; a follower's log is cleaned once it leads.
 */
public final class CacheCompaction {
  private static final Record PLACEHOLDER = Record.getDefaultInstance();

  private final ShardLog log;
  private final CacheIndex index;
  private final long defaultTtlMs;
  private final long tombstoneRetentionMs;

  public CacheCompaction(ShardLog log, CacheIndex index, long defaultTtlMs, long tombstoneRetentionMs) {
    this.log = log;
    this.index = index;
    this.defaultTtlMs = defaultTtlMs;
    this.tombstoneRetentionMs = tombstoneRetentionMs;
  }

  /** What a pass did. */
  public record Pass(int segmentsRewritten, long entriesDropped, long bytesBefore, long bytesAfter) {}

  /** Cleans every sealed, fully indexed segment that holds something to drop. */
  public Pass run(long nowMillis, Consumer<CompactionStep> afterStep) {
    int rewritten = 0;
    long dropped = 0;
    long before = 0;
    long after = 0;
    for (long base : log.sealedSegmentBases()) {
      if (log.segmentEnd(base) > index.indexedTo()) {
        break; // entries not yet committed, or not yet indexed
      }
      long[] droppedHere = {0};
      long[] keptBytes = {0};
      long[] totalBytes = {0};
      List<ByteString> expiredKeys = new ArrayList<>();
      // First a dry run: rewrite only segments that hold something to drop.
      countDroppable(base, nowMillis, droppedHere);
      if (droppedHere[0] == 0) {
        continue;
      }
      long sizeAfter = log.rewriteSealedSegment(base, batch -> {
        totalBytes[0] += batch.sizeInBytes();
        ByteBuffer payload = clean(batch, nowMillis, expiredKeys);
        keptBytes[0] += LogBatch.HEADER_BYTES + payload.remaining();
        return payload;
      }, afterStep);
      expiredKeys.forEach(index::forgetExpired);
      rewritten++;
      dropped += droppedHere[0];
      before += totalBytes[0];
      after += sizeAfter;
    }
    return new Pass(rewritten, dropped, before, after);
  }

  private void countDroppable(long base, long nowMillis, long[] count) {
    CacheIndex.forEachEntry(log, base, log.segmentEnd(base), (offset, record) -> {
      if (!record.getKey().isEmpty() && !keep(offset, record, nowMillis)) {
        count[0]++;
      }
    });
  }

  /** The batch's payload with every entry not kept replaced by a placeholder (the same payload if all are kept). */
  private ByteBuffer clean(LogBatch batch, long nowMillis, List<ByteString> expiredKeys) {
    if (batch.payloadLength() == 0) {
      return batch.payload(); // an epoch marker
    }
    List<Record> records = RecordLists.decode(ByteString.copyFrom(batch.payload().duplicate())).getRecordsList();
    List<Record> out = new ArrayList<>(records.size());
    List<ByteString> kept = new ArrayList<>();
    boolean changed = false;
    for (int i = 0; i < records.size(); i++) {
      Record r = records.get(i);
      long offset = batch.baseOffset() + i;
      if (r.getKey().isEmpty() || keep(offset, r, nowMillis)) {
        out.add(r);
        kept.add(r.getKey());
      } else {
        if (index.offsetOf(r.getKey()) == offset) {
          expiredKeys.add(r.getKey()); // the newest entry, expired: the index forgets the key
        }
        out.add(PLACEHOLDER);
        changed = true;
      }
    }
    if (!changed) {
      return batch.payload();
    }
    kept.forEach(index::forgetPosition); // placeholders are shorter: the kept records moved within the payload
    return RecordLists.encode(out).asReadOnlyByteBuffer();
  }

  /** Whether compaction keeps the entry at {@code offset}. */
  boolean keep(long offset, Record record, long nowMillis) {
    if (CacheEntries.isTombstone(record)) {
      // Newest for its key (no later put indexed) and young enough for readers of the log to see the delete.
      return index.offsetOf(record.getKey()) < 0 && nowMillis - record.getTimestampMs() < tombstoneRetentionMs;
    }
    long expiresAt = CacheEntries.expiresAtMs(record, defaultTtlMs);
    return index.offsetOf(record.getKey()) == offset && (expiresAt == 0 || expiresAt > nowMillis);
  }
}
