package io.felix.broker.log;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import java.util.zip.CRC32C;

/**
 * A CRC32C over a log's batches from its start up to an offset. Two replicas whose digests below the same offset
 * are equal hold the same batches there (up to a CRC collision): what "followers hold the leader's log below the
 * commit offset" asks of them, checked without shipping the logs.
 *
 * <p>What is digested ({@link Scope}). A follower appends the leader's batches byte for byte
 * ({@link ShardLog#appendReplicated} writes the header and payload it received, never re-framed), so a stream's
 * replicas hold byte-identical batches and {@link Scope#WHOLE_BATCHES} digests every byte of each: header (with the
 * batch's own CRC) and payload. Segment boundaries do not count (each replica rolls on its own). A cache's replicas
 * each compact their sealed segments at their own pace ({@code CacheCompaction}: a dropped entry becomes a
 * placeholder, so a payload, its length and its CRC change while offsets, counts, epochs, timestamps and producers
 * stay): {@link Scope#BATCH_HEADERS} digests those stable header fields only. Then a lost, extra, reordered or
 * re-epoched batch shows, a differing payload does not.
 *
 * <p>Cost: reads the whole log below the offset, checking every batch's CRC on the way (so damage on disk shows as
 * a failure, not as a digest). It only reads ({@link ShardLog#read}, safe from any thread): the replica actor hands
 * it to a blocking-IO thread instead of doing it between its messages.
 *
 * @param below the offset asked for: the batches whose last offset is below it are digested
 * @param logStartOffset the log's first offset when the digest started
 * @param logEndOffset the log's end when the digest started
 * @param digestedTo the offset after the last batch digested: {@code below}, unless a batch spans it; -1 when short
 * @param batches how many batches were digested
 * @param crc32c the digest, an unsigned 32-bit value; 0 when short
 */
public record LogDigest(long below, long logStartOffset, long logEndOffset, long digestedTo, long batches,
    long crc32c) {

  /** What of each batch is digested (see the class comment for which log needs which). */
  public enum Scope { WHOLE_BATCHES, BATCH_HEADERS }

  /** Bytes asked of the log per read. */
  private static final int READ_BYTES = 1 << 20;
  /**
   * Reads that return nothing in a row before the digest gives up: a read returns nothing while the log cuts or
   * swaps a segment (truncation, retention, a compaction's swap), which takes milliseconds.
   */
  private static final int MAX_EMPTY_READS = 2_000;
  private static final long EMPTY_READ_PAUSE_NANOS = 1_000_000;

  /** Whether the log ended below the offset asked for (then nothing was digested). */
  public boolean isShort() {
    return logEndOffset < below;
  }

  /**
   * Digests {@code log}'s batches from its start while their last offset is below {@code below}; short when its end
   * is below that.
   *
   * @throws OffsetOutOfRangeException if retention deleted the start of the log while it was being digested
   * @throws InvalidBatchException if a batch read back is damaged
   * @throws IllegalStateException if the log is closed, or kept being cut under the reader
   */
  public static LogDigest of(ShardLog log, long below, Scope scope) {
    long start = log.logStartOffset();
    long end = log.logEndOffset();
    if (end < below) {
      return new LogDigest(below, start, end, -1, 0, 0);
    }
    CRC32C crc = new CRC32C();
    long at = start;
    long batches = 0;
    int emptyReads = 0;
    while (at < below) {
      LogRead read = log.read(at, READ_BYTES);
      if (read.isEmpty()) {
        if (++emptyReads > MAX_EMPTY_READS) {
          throw new IllegalStateException("log " + log.directory() + " returned nothing at offset " + at + " "
              + MAX_EMPTY_READS + " times in a row while it was digested");
        }
        LockSupport.parkNanos(EMPTY_READ_PAUSE_NANOS);
        continue;
      }
      emptyReads = 0;
      ByteBuffer bytes = read.batches().slice();
      boolean spansBelow = false;
      for (BatchDecoder decoder = new BatchDecoder(bytes); decoder.hasNext(); ) {
        LogBatch batch = decoder.next();
        if (batch.nextOffset() > below) {
          spansBelow = true;
          break;
        }
        update(crc, bytes, batch, scope);
        batches++;
        at = batch.nextOffset();
      }
      if (spansBelow) {
        break;
      }
    }
    return new LogDigest(below, start, end, at, batches, crc.getValue());
  }

  private static void update(CRC32C crc, ByteBuffer bytes, LogBatch batch, Scope scope) {
    int at = batch.position();
    switch (scope) {
      case WHOLE_BATCHES -> crc.update(bytes.duplicate().limit(at + batch.sizeInBytes()).position(at));
      case BATCH_HEADERS -> {
        // Every header field but the payload length and the CRC, which compaction changes.
        crc.update(bytes.duplicate().limit(at + LogBatch.LENGTH_AT).position(at));
        crc.update(bytes.duplicate().limit(at + LogBatch.CRC_AT).position(at + LogBatch.COUNT_AT));
      }
    }
  }
}
