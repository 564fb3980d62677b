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
 * <h2>Files are opened when used</h2>
 * A segment holds at most one file descriptor, and only while it is used: the channel is opened by the first read or
 * append and closed again by {@link #closeFiles} (the log's idle close, or its close). A sealed segment nobody reads
 * costs no descriptor, and neither does the active segment of an idle log. Its sparse offset index is built when
 * first needed too: loaded from the {@code .index} file of a sealed segment, or rebuilt by walking the batch headers
 * (the active segment's index is in memory only), and a sealed segment's loaded index is dropped again by
 * {@link #closeFiles}.
 *
 * <h2>Interrupts</h2>
 * A thread interrupted in a file operation closes the channel it used ({@code ClosedByInterruptException}), and the
 * channel is shared by the owner and every reader. A reader already interrupted is refused before it touches the
 * channel; one interrupted during its read closes it, and the next user (reader, owner or flusher) opens it again.
 * Reopening is safe for the flusher: an fsync through any descriptor of the file flushes every dirty page of it, and
 * Linux reports a write-back error not yet seen to descriptors opened after it.
 */
final class Segment {
  private static final int SCAN_CHUNK = 1 << 20;

  final SegmentName name;
  final Path file;
  private final int indexInterval;
  /** The one descriptor of this segment, or null while closed (never used, or closed by {@link #closeFiles}). */
  private volatile FileChannel channel;
  /** False for the first segment of a new log until its first append creates the file. */
  private volatile boolean fileExists;
  /** False for a file created without a directory fsync, until the directory is fsynced ({@link #entryMadeDurable}). */
  private volatile boolean entryDurable = true;
  /** Set once the log closed for good: no channel is opened again. */
  private volatile boolean closed;
  /** Null until built (see the class comment); then appended to by the owner under this object's monitor. */
  private volatile OffsetIndex index;
  /** Sealed: the index can be loaded again from its file, so {@link #closeFiles} may drop it. */
  private volatile boolean sealed;
  /** Bytes of whole batches, published after they are written. */
  private volatile int size;
  /** Offset after the last batch in this segment. */
  private volatile long nextOffset;
  /** Set when the index was rebuilt from the batch headers because the index file was missing or did not fit. */
  private volatile boolean indexRebuilt;
  /** The largest batch timestamp of this sealed segment, read once by {@link #largestTimestamp}; null before. */
  private volatile Long largestTimestamp;
  /** Batches that entry reads located, so that the next read of one skips its header. */
  private final LocatedBatches located = new LocatedBatches();

  private Segment(SegmentName name, Path dir, int indexInterval, boolean fileExists) {
    this.name = name;
    this.file = name.logFile(dir);
    this.indexInterval = indexInterval;
    this.fileExists = fileExists;
    this.nextOffset = name.baseOffset();
  }

  /** Creates the segment file (which must not exist) and opens it, for an append that follows. */
  static Segment create(Path dir, long baseOffset, int indexInterval) throws IOException {
    Segment segment = new Segment(new SegmentName(baseOffset), dir, indexInterval, false);
    segment.createFile();
    segment.index = new OffsetIndex(indexInterval);
    return segment;
  }

  /** The first segment of a new, empty log: its file is created by the first append ({@link #createFile}). */
  static Segment withoutFile(Path dir, long baseOffset, int indexInterval) {
    Segment segment = new Segment(new SegmentName(baseOffset), dir, indexInterval, false);
    segment.index = new OffsetIndex(indexInterval);
    return segment;
  }

  /**
   * The first segment of a new, empty log, its file created now and left closed: the first append opens it like a
   * file an idle close closed. Its directory entry is not durable yet ({@link #entryDurable}).
   */
  static Segment createdClosed(Path dir, long baseOffset, int indexInterval) throws IOException {
    SegmentName name = new SegmentName(baseOffset);
    Files.createFile(name.logFile(dir));
    return neverWritten(dir, name, indexInterval);
  }

  /**
   * Whether this segment's directory entry is known durable: false for a file created without a directory fsync
   * ({@link #createdClosed}, {@link #createFile}), until the directory is fsynced and {@link #entryMadeDurable} called
   * (for a log's first segment, by the flush round of its first append).
   */
  boolean entryDurable() {
    return entryDurable;
  }

  void entryMadeDurable() {
    entryDurable = true;
  }

  /**
   * The empty first segment of a log that an earlier open created ({@link #createdClosed}) and nothing appended to:
   * its directory entry is not known durable either.
   */
  static Segment neverWritten(Path dir, SegmentName name, int indexInterval) {
    Segment segment = new Segment(name, dir, indexInterval, true);
    segment.index = new OffsetIndex(indexInterval);
    segment.entryDurable = false;
    return segment;
  }

  /** An existing segment with nothing published: {@link #scan} verifies it and publishes the valid part. */
  static Segment existing(Path dir, SegmentName name, int indexInterval) {
    return new Segment(name, dir, indexInterval, true);
  }

  /**
   * A sealed segment below the recovery point, trusted without reading it: its size is the file's, its end is the
   * next segment's base offset; its index is loaded when first needed. Null if the file is larger than a segment
   * can be.
   */
  static Segment trustedSealed(Path dir, SegmentName name, int indexInterval, long nextOffset) throws IOException {
    Segment segment = new Segment(name, dir, indexInterval, true);
    long fileSize = Files.size(segment.file);
    if (fileSize > LogSettings.MAX_SEGMENT_BYTES) {
      return null;
    }
    segment.sealed = true;
    segment.nextOffset = nextOffset;
    segment.size = (int) fileSize;
    return segment;
  }

  /**
   * Publishes a prefix of an existing segment trusted without reading it ({@code [0, bytes)} holding offsets up to
   * {@code next}): the part below the recovery point. Its index is built when first needed.
   */
  void trustPrefix(int bytes, long next) {
    size = bytes;
    nextOffset = next;
  }

  /** This segment is sealed (not the last): its index file can be loaded again, so an idle close may drop it. */
  void sealedBelow() {
    sealed = true;
  }

  boolean fileExists() {
    return fileExists;
  }

  /**
   * Creates this segment's file and opens it. Its directory entry is not durable until the caller fsyncs the
   * directory and calls {@link #entryMadeDurable}.
   */
  void createFile() throws IOException {
    channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
        StandardOpenOption.WRITE);
    fileExists = true;
    entryDurable = false;
  }

  /** The open channel, opened now if it is closed. */
  private FileChannel channel() throws IOException {
    FileChannel ch = channel;
    if (ch != null && ch.isOpen()) {
      return ch;
    }
    synchronized (this) {
      ch = channel;
      if (ch != null && ch.isOpen()) {
        return ch;
      }
      if (closed) {
        throw new ClosedChannelException();
      }
      if (!fileExists) {
        throw new IOException("segment " + file + " has no file yet");
      }
      ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
      channel = ch;
      return ch;
    }
  }

  /** Whether this segment holds an open file descriptor now. */
  boolean holdsFile() {
    FileChannel ch = channel;
    return ch != null && ch.isOpen();
  }

  /** The index, built now if it is not (see the class comment). */
  private OffsetIndex index() throws IOException {
    OffsetIndex built = index;
    return built != null ? built : buildIndex();
  }

  private synchronized OffsetIndex buildIndex() throws IOException {
    if (index != null) {
      return index;
    }
    OffsetIndex fresh = new OffsetIndex(indexInterval);
    int limit = size;
    int from = 0;
    if (sealed) {
      String unusable = fresh.loadFrom(name.indexFile(file.getParent()), name.baseOffset(), limit);
      if (unusable == null) {
        index = fresh;
        return fresh;
      }
      indexRebuilt = true;
    }
    if (!walkHeaders(fresh, from, limit)) {
      throw new CorruptLogException("segment " + file + " does not hold offsets [" + name.baseOffset() + ", "
          + nextOffset + ") in its " + limit + " bytes: its batch headers do not chain");
    }
    index = fresh;
    return fresh;
  }

  /** Indexes the batches in {@code [from, limit)} by their headers (no CRC); true if they chain to the end. */
  private boolean walkHeaders(OffsetIndex into, int from, int limit) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(LogBatch.HEADER_BYTES);
    long expected = name.baseOffset();
    long pos = from;
    while (pos < limit) {
      header.clear();
      readFully(header, pos, limit);
      int length = header.getInt(LogBatch.LENGTH_AT);
      int count = header.getInt(LogBatch.COUNT_AT);
      if (header.hasRemaining() || header.getLong(0) != expected || length < 0 || count < 1
          || pos + LogBatch.HEADER_BYTES + length > limit) {
        return false;
      }
      into.onBatch(expected, (int) pos, LogBatch.HEADER_BYTES + length);
      expected += count;
      pos += LogBatch.HEADER_BYTES + length;
    }
    return expected == nextOffset;
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
    index().writeTo(name.indexFile(file.getParent()));
    sealed = true;
  }

  /**
   * Builds the index now (at open, for a sealed segment whose index file is missing or cannot be whole entries):
   * false if the batch headers do not chain from the base offset to the segment's end.
   */
  boolean indexNow() throws IOException {
    try {
      index();
      return true;
    } catch (CorruptLogException e) {
      return false;
    }
  }

  /** Whether the segment's index file exists and is whole entries (its content is checked when it is loaded). */
  static boolean indexFileLooksUsable(Path dir, SegmentName name) throws IOException {
    Path indexFile = name.indexFile(dir);
    if (!Files.exists(indexFile)) {
      return false;
    }
    long bytes = Files.size(indexFile);
    return bytes > 0 && bytes % OffsetIndex.ENTRY_BYTES == 0;
  }

  /** Whether the last index built had to be rebuilt from the batch headers (the index file was unusable). */
  boolean indexRebuilt() {
    return indexRebuilt;
  }

  /** Removes the index file: the segment is being cut and becomes the active one again. */
  void deleteIndexFile() throws IOException {
    sealed = false;
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
    return fileExists ? Files.size(file) : 0;
  }

  int indexEntries() throws IOException {
    return index().entries();
  }

  /** What a scan found: the valid prefix, and the damage after it if any. */
  record Scan(int validBytes, long nextOffset, long lastEpoch, LogBatch.Damage damage, String problem) {}

  /** Receives each valid batch in order during a scan. */
  interface BatchListener {
    void onBatch(long baseOffset, long leaderEpoch);
  }

  /**
   * Reads the file from byte {@code from} (0, or the end of a prefix published by {@link #trustPrefix}), checking
   * every batch (header, CRC, offset continuity from {@code expectedOffset}, epochs never decreasing from
   * {@code lastEpoch}), and publishes the valid part. Stops at the first damage. A scan from byte 0 indexes what it
   * reads; one from further on leaves the index to be built when first needed.
   */
  Scan scan(int from, long expectedOffset, long lastEpoch, BatchListener listener) throws IOException {
    long fileSize = channel().size();
    if (fileSize > LogSettings.MAX_SEGMENT_BYTES) {
      return new Scan(from, expectedOffset, lastEpoch, LogBatch.Damage.INVALID, "file is larger than 2 GiB");
    }
    OffsetIndex building = from == 0 ? new OffsetIndex(indexInterval) : null;
    index = null;
    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(SCAN_CHUNK, Math.max(fileSize, LogBatch.HEADER_BYTES)));
    int bufStart = from; // file position of buf[0]
    int valid = from;
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
        return publishScan(building, valid, expected, epoch, damage,
            damage == null ? null : damage == LogBatch.Damage.INCOMPLETE ? "incomplete batch" : "bad header or CRC");
      }
      LogBatch batch = LogBatch.decodeAt(buf, at);
      if (batch.baseOffset() != expected) {
        return publishScan(building, valid, expected, epoch, LogBatch.Damage.INVALID,
            "batch has base offset " + batch.baseOffset() + ", expected " + expected);
      }
      if (batch.leaderEpoch() < epoch) {
        return publishScan(building, valid, expected, epoch, LogBatch.Damage.INVALID,
            "batch has leader epoch " + batch.leaderEpoch() + " after epoch " + epoch);
      }
      listener.onBatch(batch.baseOffset(), batch.leaderEpoch());
      if (building != null) {
        building.onBatch(batch.baseOffset(), valid, batch.sizeInBytes());
      }
      epoch = batch.leaderEpoch();
      expected = batch.nextOffset();
      valid += batch.sizeInBytes();
    }
  }

  private Scan publishScan(OffsetIndex built, int valid, long next, long epoch, LogBatch.Damage damage,
      String problem) {
    nextOffset = next;
    size = valid;
    index = built;
    return new Scan(valid, next, epoch, damage, problem);
  }

  /**
   * Reads from the shared channel, opening it if needed. A thread already interrupted is refused before it touches
   * the channel (its read would close the channel for everyone); a channel closed under a read (by the idle close, or
   * another reader's interrupt) is opened again and the read repeated.
   */
  private void readFully(ByteBuffer dst, long position, long fileSize) throws IOException {
    if (Thread.currentThread().isInterrupted()) {
      throw new ClosedByInterruptException();
    }
    int start = dst.position();
    for (int attempt = 0; ; attempt++) {
      try {
        readFully(channel(), dst, position, fileSize);
        return;
      } catch (ClosedByInterruptException e) {
        throw e; // this thread's interrupt closed the channel; the next user opens it again
      } catch (ClosedChannelException e) {
        if (closed || attempt >= 3) {
          throw e;
        }
        dst.position(start);
      }
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

  /** Appends one batch (header then payload) at the end; owner thread only. Publishes it once written. */
  void append(ByteBuffer header, ByteBuffer payload, long baseOffset, long next) throws IOException {
    int position = size;
    int length = header.remaining() + payload.remaining();
    ByteBuffer[] parts = {header.duplicate(), payload.duplicate()};
    FileChannel ch = channel();
    ch.position(position);
    while (parts[1].hasRemaining() || parts[0].hasRemaining()) {
      ch.write(parts);
    }
    OffsetIndex idx = index(); // built over the batches before this one, if it was not
    synchronized (this) {
      idx.onBatch(baseOffset, position, length);
    }
    nextOffset = next;
    size = position + length; // publish: readers may now read these bytes
  }

  /** Cuts the segment at {@code position} (a batch boundary), durably; owner thread only. */
  void truncateTo(int position, long next) throws IOException {
    OffsetIndex idx = index();
    size = Math.min(size, position);
    nextOffset = next;
    synchronized (this) {
      idx.truncateTo(position);
    }
    FileChannel ch = channel();
    ch.truncate(position);
    ch.force(true);
    size = position;
    located.forget();
  }

  /** Fsyncs the segment's data, if it has a file. */
  void force() throws IOException {
    if (fileExists) {
      channel().force(false);
    }
  }

  /** Where a batch starts in the segment. */
  record BatchStart(int position, long baseOffset, int recordCount, int payloadLength) {
    /** The position after the batch. */
    long end() {
      return (long) position + LogBatch.HEADER_BYTES + payloadLength;
    }
  }

  /** The batch containing {@code offset}, or null if it is not in this segment's published range. */
  BatchStart locate(long offset) throws IOException {
    int limit = size;
    int pos = index().floorPosition(offset);
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
        return base <= offset ? new BatchStart(pos, base, count, length) : null;
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
    BatchStart batch = located.find(offset);
    if (batch == null || batch.end() > limit) {
      long generation = located.generation();
      batch = locate(offset);
      if (batch == null) {
        return ByteBuffer.allocate(0);
      }
      located.remember(batch, generation);
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

  /**
   * Closes the descriptor (the next use opens it again) and drops a sealed segment's index (loaded again from its
   * file when needed). The log calls this only with nothing of this segment waiting for an fsync.
   */
  synchronized void closeFiles() throws IOException {
    if (sealed) {
      index = null;
    }
    closeChannel();
  }

  /** Closes the descriptor only (a segment just sealed: fsynced, and read again only by readers catching up). */
  synchronized void closeChannel() throws IOException {
    FileChannel ch = channel;
    channel = null;
    if (ch != null) {
      ch.close();
    }
  }

  /** Closes the segment for good. */
  synchronized void close() throws IOException {
    closed = true;
    FileChannel ch = channel;
    channel = null;
    if (ch != null) {
      ch.close();
    }
  }

  void closeAndDelete() throws IOException {
    close();
    deleteIndexFile();
    Files.deleteIfExists(file);
  }
}
