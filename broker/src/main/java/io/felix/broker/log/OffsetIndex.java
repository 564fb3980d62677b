package io.felix.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * The sparse offset index of one segment, in memory: (base offset, byte position) of a batch every
 * {@code intervalBytes} of log, so a read finds its batch by a binary search and a short walk of headers.
 * It is rebuilt by the scan that verifies each segment when the log opens, so it is never out of step with the data.
 *
 * <p>When a segment is sealed (rolled) its index is written to {@code <base>.index}: 12 bytes per entry, the base
 * offset (int64) and position (int32) big-endian, so that a log opened with {@code verify-on-open = unflushed}
 * need not read sealed segments at all.
 *
 * <p>Thread-safety: one writer (the log's owner), any number of readers. Entries are published by a volatile
 * count written after the arrays; a reader reads the count first, then the arrays (which, if grown, hold at least
 * as many entries). Truncation can make a concurrent lookup return a stale position; the log's truncation
 * generation check discards such reads.
 */
final class OffsetIndex {
  private final int intervalBytes;
  private volatile long[] offsets = new long[16];
  private volatile int[] positions = new int[16];
  private volatile int count;
  private long bytesSinceEntry;

  OffsetIndex(int intervalBytes) {
    this.intervalBytes = intervalBytes;
  }

  /** Called for each batch appended, in order; indexes the first batch and then one every interval. */
  void onBatch(long baseOffset, int position, int size) {
    if (count == 0 || bytesSinceEntry >= intervalBytes) {
      add(baseOffset, position);
      bytesSinceEntry = 0;
    }
    bytesSinceEntry += size;
  }

  private void add(long baseOffset, int position) {
    int n = count;
    long[] o = offsets;
    int[] p = positions;
    if (n == o.length) {
      o = Arrays.copyOf(o, n * 2);
      p = Arrays.copyOf(p, n * 2);
    }
    o[n] = baseOffset;
    p[n] = position;
    offsets = o;
    positions = p;
    count = n + 1;
  }

  /** The position of the last indexed batch whose base offset is at most {@code offset}, or 0. */
  int floorPosition(long offset) {
    int n = count;
    long[] o = offsets;
    int[] p = positions;
    int lo = 0;
    int hi = n - 1;
    int found = -1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      if (o[mid] <= offset) {
        found = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return found < 0 ? 0 : p[found];
  }

  /** Drops the entries at or after {@code position}; the next batch appended is indexed. */
  void truncateTo(int position) {
    int n = count;
    int[] p = positions;
    while (n > 0 && p[n - 1] >= position) {
      n--;
    }
    count = n;
    bytesSinceEntry = intervalBytes;
  }

  int entries() {
    return count;
  }

  static final int ENTRY_BYTES = 12;

  /** Writes the index to {@code file} durably (temp file, fsync, rename; the caller fsyncs the directory). */
  void writeTo(Path file) throws IOException {
    int n = count;
    ByteBuffer buf = ByteBuffer.allocate(n * ENTRY_BYTES);
    for (int i = 0; i < n; i++) {
      buf.putLong(offsets[i]).putInt(positions[i]);
    }
    CheckpointFile.replace(file, buf.flip());
  }

  /**
   * Loads a sealed segment's index, or returns why it cannot be used (missing, wrong size, not starting at the
   * segment's base offset and position 0, not strictly increasing, positions past the segment's size).
   */
  String loadFrom(Path file, long baseOffset, long segmentSize) throws IOException {
    Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".tmp"));
    if (!Files.exists(file)) {
      return "no index file";
    }
    ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
    if (buf.remaining() == 0 || buf.remaining() % ENTRY_BYTES != 0) {
      return "index file of " + buf.remaining() + " bytes";
    }
    long lastOffset = baseOffset - 1;
    long lastPosition = -1;
    count = 0;
    while (buf.hasRemaining()) {
      long offset = buf.getLong();
      int position = buf.getInt();
      boolean first = count == 0;
      if ((first && (offset != baseOffset || position != 0)) || offset <= lastOffset || position <= lastPosition
          || position >= segmentSize) {
        String problem = "index entry " + count + " (" + offset + ", " + position + ") does not fit the segment";
        count = 0;
        return problem;
      }
      add(offset, position);
      lastOffset = offset;
      lastPosition = position;
    }
    return null;
  }
}
