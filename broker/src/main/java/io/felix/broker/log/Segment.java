package io.felix.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One segment file of a {@link ShardLog}: batches back to back from byte 0, the first with the segment's base offset.
 * Owned by its log: only the log's owner thread appends, truncates, closes; any thread may read up to the published
 * size (positional reads, which do not touch the channel's position).
 *
 * <p>Reads go through a channel of their own: a thread interrupted in a file operation closes the channel it used
 * ({@code ClosedByInterruptException}), and a reader's interrupt must not close the channel appends and fsyncs
 * use. A read channel closed that way is reopened for the next reader.
 */
final class Segment {
  private static final int SCAN_CHUNK = 1 << 20;

  final SegmentName name;
  final Path file;
  private final FileChannel channel;
  private volatile FileChannel readChannel;
  private volatile boolean closed;
  private final OffsetIndex index;
  /** Bytes of whole batches, published after they are written. */
  private volatile int size;
  /** Offset after the last batch in this segment. */
  private volatile long nextOffset;
  /** Set when {@link #openSealed} found the index file unusable and rebuilt the index from the batch headers. */
  private boolean indexRebuilt;
  /** The largest batch timestamp of this sealed segment, read once by {@link #largestTimestamp}; null before. */
  private volatile Long largestTimestamp;

  private Segment(SegmentName name, Path file, FileChannel channel, int indexInterval) throws IOException {
    this.name = name;
    this.file = file;
    this.channel = channel;
    this.readChannel = FileChannel.open(file, StandardOpenOption.READ);
    this.index = new OffsetIndex(indexInterval);
    this.nextOffset = name.baseOffset();
  }

  static Segment create(Path dir, long baseOffset, int indexInterval) throws IOException {
    SegmentName name = new SegmentName(baseOffset);
    Path file = name.logFile(dir);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    return new Segment(name, file, channel, indexInterval);
  }

  /** Opens an existing segment with nothing published: {@link #scan} verifies it and publishes the valid part. */
  static Segment open(Path dir, SegmentName name, int indexInterval) throws IOException {
    Path file = name.logFile(dir);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
    return new Segment(name, file, channel, indexInterval);
  }

  /**
   * Opens a sealed segment below the recovery point without reading its batches: its size is the file's, its end
   * is the next segment's base offset, its index is loaded from its index file, or rebuilt by walking the batch
   * headers (no CRC) if that file is missing or does not fit. Returns null, with the segment closed, if the headers
   * do not chain from the base offset to {@code nextOffset}.
   */
  static Segment openSealed(Path dir, SegmentName name, int indexInterval, long nextOffset) throws IOException {
    Segment segment = open(dir, name, indexInterval);
    long fileSize = segment.channel.size();
    if (fileSize > LogSettings.MAX_SEGMENT_BYTES) {
      segment.close();
      return null;
    }
    String unusable = segment.index.loadFrom(name.indexFile(dir), name.baseOffset(), fileSize);
    if (unusable != null && !segment.walkHeaders(fileSize, nextOffset)) {
      segment.close();
      return null;
    }
    segment.indexRebuilt = unusable != null;
    segment.nextOffset = nextOffset;
    segment.size = (int) fileSize;
    return segment;
  }

  /** Rebuilds the index from the batch headers; true if they chain from the base offset to {@code end}. */
  private boolean walkHeaders(long fileSize, long end) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_BYTES);
    long expected = name.baseOffset();
    long pos = 0;
    while (pos < fileSize) {
      header.clear();
      readFully(channel, header, pos, fileSize);
      int length = header.getInt(LogBatch.LENGTH_AT);
      int count = header.getInt(LogBatch.COUNT_AT);
      if (header.hasRemaining() || header.getLong(0) != expected || length < 0 || count < 1
          || pos + LogBatch.HEADER_BYTES + length > fileSize) {
        return false;
      }
      index.onBatch(expected, (int) pos, LogBatch.HEADER_BYTES + length);
      expected += count;
      pos += LogBatch.HEADER_BYTES + length;
    }
    return expected == end;
  }

  /**
   * The largest {@code maxTimestamp} of this segment's batches (what time-based retention compares), found by walking
   * the batch headers once and kept: only called on sealed segments, which no longer change. Long.MIN_VALUE when
   * the segment holds no batch.
   */
  long largestTimestamp() throws IOException {
    Long known = largestTimestamp;
    if (known != null) {
      return known;
    }
    int limit = size;
    long largest = Long.MIN_VALUE;
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_BYTES);
    for (int pos = 0; pos + LogBatch.HEADER_BYTES <= limit; ) {
      header.clear();
      readFully(header, pos, limit);
      largest = Math.max(largest, header.getLong(LogBatch.MAX_TS_AT));
      pos += LogBatch.HEADER_BYTES + header.getInt(LogBatch.LENGTH_AT);
    }
    largestTimestamp = largest;
    return largest;
  }

  /** Writes the index file of this segment, which is being sealed (the caller fsyncs the directory). */
  void writeIndexFile() throws IOException {
    index.writeTo(name.indexFile(file.getParent()));
  }

  boolean indexRebuilt() {
    return indexRebuilt;
  }

  /** Removes the index file: the segment is being cut and becomes the active one again. */
  void deleteIndexFile() throws IOException {
    Files.deleteIfExists(name.indexFile(file.getParent()));
  }

  long baseOffset() {
    return name.baseOffset();
  }

  int size() {
    return size;
  }

  long nextOffset() {
    return nextOffset;
  }

  long fileSize() throws IOException {
    return channel.size();
  }

  int indexEntries() {
    return index.entries();
  }

  /** What a scan found: the valid prefix, and the damage after it if any. */
  record Scan(int validBytes, long nextOffset, long lastEpoch, LogBatch.Damage damage, String problem) {}

  /** Receives each valid batch in order during a scan. */
  interface BatchListener {
    void onBatch(long baseOffset, long leaderEpoch);
  }

  /**
   * Reads the whole file, checking every batch (header, CRC, offset continuity from {@code expectedOffset}, epochs
   * never decreasing from {@code lastEpoch}), indexes the valid prefix and publishes it. Stops at the first damage.
   */
  Scan scan(long expectedOffset, long lastEpoch, BatchListener listener) throws IOException {
    long fileSize = channel.size();
    if (fileSize > LogSettings.MAX_SEGMENT_BYTES) {
      return new Scan(0, expectedOffset, lastEpoch, LogBatch.Damage.INVALID, "file is larger than 2 GiB");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(SCAN_CHUNK, Math.max(fileSize, LogBatch.HEADER_BYTES)));
    int bufStart = 0; // file position of buf[0]
    int valid = 0;
    long expected = expectedOffset;
    long epoch = lastEpoch;
    buf.limit(0);
    while (true) {
      int at = valid - bufStart;
      LogBatch.Damage damage = LogBatch.check(buf, at, LogSettings.MAX_SEGMENT_BYTES);
      int need = damage == LogBatch.Damage.INCOMPLETE && buf.limit() - at >= LogBatch.HEADER_BYTES
          ? LogBatch.HEADER_BYTES + buf.getInt(at + LogBatch.LENGTH_AT) : LogBatch.HEADER_BYTES;
      if (damage == LogBatch.Damage.INCOMPLETE && bufStart + buf.limit() < fileSize && valid + (long) need <= fileSize) {
        // Refill: move the partial batch to the front, growing the buffer if one batch is larger than it. A length
        // reaching past the end of the file is a torn tail, not a reason to allocate.
        ByteBuffer next;
        if (need > buf.capacity()) {
          next = ByteBuffer.allocate(need).put(buf.position(at));
        } else {
          next = buf.position(at).compact();
        }
        bufStart = valid;
        int kept = next.position();
        readFully(next, bufStart + kept, fileSize);
        if (next.position() == kept) {
          throw new IOException("segment " + file + " shrank while it was being scanned");
        }
        next.flip();
        buf = next;
        continue;
      }
      if (damage != null) {
        if (damage == LogBatch.Damage.INCOMPLETE && valid == fileSize) {
          damage = null; // clean end of file
        }
        return publishScan(valid, expected, epoch, damage,
            damage == null ? null : damage == LogBatch.Damage.INCOMPLETE ? "incomplete batch" : "bad header or CRC");
      }
      LogBatch batch = LogBatch.decodeAt(buf, at);
      if (batch.baseOffset() != expected) {
        return publishScan(valid, expected, epoch, LogBatch.Damage.INVALID,
            "batch has base offset " + batch.baseOffset() + ", expected " + expected);
      }
      if (batch.leaderEpoch() < epoch) {
        return publishScan(valid, expected, epoch, LogBatch.Damage.INVALID,
            "batch has leader epoch " + batch.leaderEpoch() + " after epoch " + epoch);
      }
      listener.onBatch(batch.baseOffset(), batch.leaderEpoch());
      index.onBatch(batch.baseOffset(), valid, batch.sizeInBytes());
      epoch = batch.leaderEpoch();
      expected = batch.nextOffset();
      valid += batch.sizeInBytes();
    }
  }

  private Scan publishScan(int valid, long next, long epoch, LogBatch.Damage damage, String problem) {
    nextOffset = next;
    size = valid;
    return new Scan(valid, next, epoch, damage, problem);
  }

  private void readFully(ByteBuffer dst, long position, long fileSize) throws IOException {
    int start = dst.position();
    try {
      readFully(readChannel, dst, position, fileSize);
    } catch (ClosedByInterruptException e) {
      reopenReadChannel(); // for the other readers; this thread stays interrupted
      throw e;
    } catch (ClosedChannelException e) {
      if (closed) {
        throw e;
      }
      reopenReadChannel(); // another reader's interrupt closed it
      dst.position(start);
      readFully(readChannel, dst, position, fileSize);
    }
  }

  private static void readFully(FileChannel from, ByteBuffer dst, long position, long fileSize) throws IOException {
    long pos = position;
    while (dst.hasRemaining() && pos < fileSize) {
      int n = from.read(dst, pos);
      if (n < 0) {
        break;
      }
      pos += n;
    }
  }

  private synchronized void reopenReadChannel() throws IOException {
    if (!closed && !readChannel.isOpen()) {
      readChannel = FileChannel.open(file, StandardOpenOption.READ);
    }
  }

  /** Appends one batch (header then payload) at the end; owner thread only. Publishes it once written. */
  void append(ByteBuffer header, ByteBuffer payload, long baseOffset, long next) throws IOException {
    int position = size;
    int length = header.remaining() + payload.remaining();
    ByteBuffer[] parts = {header.duplicate(), payload.duplicate()};
    channel.position(position);
    while (parts[1].hasRemaining() || parts[0].hasRemaining()) {
      channel.write(parts);
    }
    index.onBatch(baseOffset, position, length);
    nextOffset = next;
    size = position + length; // publish: readers may now read these bytes
  }

  /** Cuts the segment at {@code position} (a batch boundary), durably; owner thread only. */
  void truncateTo(int position, long next) throws IOException {
    size = Math.min(size, position);
    nextOffset = next;
    index.truncateTo(position);
    channel.truncate(position);
    channel.force(true);
    size = position;
  }

  void force() throws IOException {
    channel.force(false);
  }

  /** Where a batch starts in the segment. */
  record BatchStart(int position, long baseOffset, int payloadLength) {}

  /** The batch containing {@code offset}, or null if it is not in this segment's published range. */
  BatchStart locate(long offset) throws IOException {
    int limit = size;
    int pos = index.floorPosition(offset);
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_BYTES);
    while (pos < limit) {
      header.clear();
      readFully(header, pos, limit);
      if (header.hasRemaining()) {
        break;
      }
      long base = header.getLong(0);
      int count = header.getInt(LogBatch.COUNT_AT);
      int length = header.getInt(LogBatch.LENGTH_AT);
      if (count < 1 || length < 0) {
        return null; // not a header: the bytes changed under a reader (a truncation); the log retries
      }
      if (offset < base + count) {
        return base <= offset ? new BatchStart(pos, base, length) : null;
      }
      pos += LogBatch.HEADER_BYTES + length;
    }
    return null;
  }

  /**
   * Up to {@code length} bytes of the payload of the batch containing {@code offset}, from byte {@code position} of
   * that payload on (fewer at the payload's end); empty if the batch is not in this segment's published range.
   */
  ByteBuffer readPayloadBytes(long offset, int position, int length) throws IOException {
    int limit = size;
    BatchStart batch = locate(offset);
    if (batch == null) {
      return ByteBuffer.allocate(0);
    }
    ByteBuffer out = ByteBuffer.allocate(Math.max(0, Math.min(length, batch.payloadLength() - position)));
    readFully(out, (long) batch.position() + LogBatch.HEADER_BYTES + position, limit);
    return out.flip();
  }

  /**
   * Reads whole batches from the one containing {@code offset}: at most {@code maxBytes} (but always the first
   * batch whole, so a reader makes progress), none that ends after {@code limitOffset}.
   */
  LogRead read(long offset, int maxBytes, long limitOffset) throws IOException {
    int limit = size;
    BatchStart first = locate(offset);
    if (first == null) {
      return new LogRead(ByteBuffer.allocate(0), offset);
    }
    int start = first.position();
    ByteBuffer chunk = ByteBuffer.allocate(Math.max(LogBatch.HEADER_BYTES, Math.min(maxBytes, limit - start)));
    readFully(chunk, start, limit);
    chunk.flip();
    int end = 0;
    long next = offset;
    while (chunk.limit() - end >= LogBatch.HEADER_BYTES) {
      int length = chunk.getInt(end + LogBatch.LENGTH_AT);
      int batchSize = LogBatch.HEADER_BYTES + length;
      long batchNext = chunk.getLong(end) + chunk.getInt(end + LogBatch.COUNT_AT);
      if (length < 0 || length > limit || batchNext > limitOffset) {
        break;
      }
      if (chunk.limit() - end < batchSize) {
        if (end == 0 && start + batchSize <= limit) {
          // The first batch is larger than maxBytes: return it whole.
          chunk = ByteBuffer.allocate(batchSize);
          readFully(chunk, start, limit);
          chunk.flip();
          return new LogRead(chunk, batchNext);
        }
        break;
      }
      end += batchSize;
      next = batchNext;
    }
    return new LogRead(chunk.limit(end).slice(), next);
  }

  synchronized void close() throws IOException {
    closed = true;
    try {
      readChannel.close();
    } finally {
      channel.close();
    }
  }

  void closeAndDelete() throws IOException {
    close();
    deleteIndexFile();
    Files.deleteIfExists(file);
  }
}
