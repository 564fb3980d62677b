package io.felix.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segmented, append-only log of one shard replica, in one directory.
 *
 * <p>This class appends, rolls, truncates, reads, recovers (with {@link LogRecovery}) and closes idle files; three
 * jobs live in classes of their own, each stating its thread-safety rule, and this class's methods for them only
 * delegate: {@link LogDurability} (the durable offset, group-commit flushes, waiting for a batch to be stored),
 * {@link LogRetention} (deleting sealed segments past the time or size limit) and {@link LogCompaction} (the
 * crash-safe rewrite of a sealed segment). Every change of the segment files goes through {@link #changeSegments}.
 *
 * <h2>On disk</h2>
 * <ul>
 *   <li>{@code <baseOffset, 20 digits>.log} segment files ({@link SegmentName}): {@link LogBatch} frames back to back,
 *       each with a 64-byte header (base offset, payload length, record count, leader epoch, first and max
 *       timestamp, magic, idempotent producer id, epoch and base sequence, CRC32C over the whole batch) and the
 *       opaque payload. A segment rolls when the next batch
 *       would take it past {@code segment-bytes}.
 *   <li>{@code <baseOffset>.index} beside each sealed segment: its sparse offset index ({@link OffsetIndex}), written
 *       when it rolls. The active segment's index lives in memory only and is rebuilt when the log opens.
 *   <li>{@value EpochIndex#FILE_NAME}: {@code epoch startOffset} per line, the first offset of each leader epoch.
 *   <li>{@value #RECOVERY_POINT}: an offset below which every batch was fsynced, and where it lies on disk
 *       ({@link RecoveryPoint}); written at each roll, truncation, clean close and idle close.
 *   <li>{@code <offset>.producers}: the idempotent producers' state as of that offset ({@link ProducerSnapshot}),
 *       written at each roll; open loads the newest and reads only the batches after it ({@link #producers}).
 * </ul>
 * A new log has no segment file until its first append creates {@code 00000000000000000000.log}. No file is locked:
 * one owner per directory is kept by the broker's lock of its whole data directory against other processes, and by
 * a registry of the directories open in this JVM against a second owner here ({@link #open} refuses both).
 * The log start offset is not stored anywhere: it is the first segment's base offset. Retention
 * ({@link #deleteSegmentsPastRetention}) deletes whole sealed segments, oldest first, and fsyncs the directory, so the
 * files left are always a contiguous log and a restart finds the start where retention left it.
 *
 * <h2>Invariants</h2>
 * Offsets are contiguous: each batch starts where the previous one ended, across segments; a segment's first batch
 * has the segment's base offset. Leader epochs never decrease along the log. Everything below the recovery point is
 * durable and intact.
 *
 * <h2>Recovery</h2>
 * Open verifies batches (header, CRC, offset continuity, epochs): with {@code verify-on-open = all} (default) every
 * batch of every segment, reading the whole log; with {@code unflushed} only what a crash can have torn, the bytes
 * after the recovery point, trusting everything before it (sealed segments and the active segment's prefix, their
 * indexes built when first read, their epochs taken from the epoch file), so an open's time does not grow with the
 * log: a log closed cleanly or idle opens without reading a batch. Damage at or after the recovery point is what a crash leaves (a torn
 * write, or pages of unflushed batches written back out of order): that batch and everything after it are dropped,
 * with a WARN line giving the bytes dropped. Damage below the recovery point is corruption of data known to be durable (acknowledged): open fails
 * with {@link CorruptLogException} so the replica is marked failed instead of serving bad data or silently
 * forgetting it (with {@code all}; {@code unflushed} does not read it). (The recovery point moves only at roll,
 * truncation, close and idle close, so after a crash, media damage in the rest of the active segment is treated as a
 * torn tail too: the replica then fetches those records again from its leader.)
 *
 * <h2>Files are open only while used</h2>
 * Each segment holds at most one file descriptor, opened by its first read or append ({@link Segment}). A log that
 * nobody appended to or read from for {@code felix.log.idle-file-close} closes them ({@link #closeFilesIfIdle}, run
 * by the broker's {@link FlushScheduler}) and opens them again on the next append or read, so an idle replica holds
 * no descriptor and an active one holds one (its active segment) plus one per sealed segment being read. An idle
 * close happens only with everything appended fsynced (the durable offset at the log end): no batch is ever left
 * unflushed behind a closed descriptor, and the recovery point moves to the end then, so a crash later costs the
 * idle log no recovery.
 *
 * <h2>Durability</h2>
 * Appends write to the page cache; the broker's {@link FlushScheduler} fsyncs. With {@code flush = always} (the
 * default) a batch counts as stored only once fsynced ({@link #awaitStored}). An fsync costs about 0.5 ms here, so
 * appends share them (group commit): a log asks the flusher once, every append made before the fsync starts is
 * covered by it, and the appends made meanwhile by the next one. An append waits about one fsync, and throughput
 * does not pay an fsync per append (measured: about 7 appends per fsync at 20,000 16-KiB appends/s over 12 logs).
 * With {@code flush = interval} a batch counts as stored once written and is fsynced within the interval: lower
 * latency and fewer fsyncs, but a power loss on a majority of replicas can lose acknowledged records.
 *
 * <h2>Thread-safety</h2>
 * One owner thread (the replica actor) calls every method that changes the log: appends, {@link #truncateTo},
 * {@link #close}, {@link #deleteAll}. Any thread may call {@link #read} and the offset getters: reads see batches up to
 * the published (volatile) log end offset, with positional file reads. A read that overlaps a truncation is detected
 * (a generation counter, odd while truncating) and retried, so it never returns bytes from before and after a cut;
 * a read beyond the new end returns nothing or fails with {@link OffsetOutOfRangeException}. Flusher threads only
 * fsync, under a lock shared with roll, truncation and close (the flush lock). The idle close runs on a flusher
 * thread too: it takes the append lock (held by the owner while it writes a batch; the idle close only tries it, so
 * it never makes an append wait for long) and then the flush lock, so it never closes a descriptor an append or an
 * fsync is using; a read whose descriptor it closes opens it again and repeats. Durability callbacks run on a
 * flusher thread (or the owner, at roll and close) and must not block. The owner thread must not be interrupted
 * while in this class (an interrupt closes the file channel it is using, and the log fails); a reader thread may
 * be: one already interrupted is refused before it touches the shared descriptor, one interrupted during its read
 * closes it and the next user opens it again.
 */
public final class ShardLog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShardLog.class);
  static final String RECOVERY_POINT = "recovery-point";
  /** The log directories open in this JVM: a second owner of one is refused (see Thread-safety). */
  private static final Set<Path> OPEN_DIRECTORIES = ConcurrentHashMap.newKeySet();

  private final Path dir;
  private final LogSettings settings;
  private final FlushScheduler flusher;
  private final ConcurrentSkipListMap<Long, Segment> segments;
  private final EpochIndex epochs;
  private final CheckpointFile recoveryPointFile;
  /** This log's entry in {@link #OPEN_DIRECTORIES}. */
  private final Path claimed;
  private final Object flushLock = new Object();
  /** Held by the owner while it writes a batch; the idle close only tries it (see Thread-safety). */
  private final ReentrantLock appendLock = new ReentrantLock();
  private final AtomicLong truncations = new AtomicLong();
  private final LogDurability durability;
  private final LogRetention retention = new LogRetention(this);
  private final LogCompaction compaction = new LogCompaction(this);
  private final ProducerStates producers = new ProducerStates(System::currentTimeMillis);
  private final LongSupplier nanoClock;
  /** When an append or a read last used the files (the flusher's clock). */
  private volatile long lastUsedNanos;
  /** Set by an idle close, cleared by the next use: the idle close has nothing more to do until then. */
  private volatile boolean filesClosedIdle;
  private volatile Segment active;
  private volatile long logEndOffset;
  private volatile IOException failure;
  private volatile boolean closed;
  /** An append started a new epoch: the epoch file is to be written before that append counts as durable. */
  private final AtomicBoolean epochsPending = new AtomicBoolean();
  /** Guarded by the flush lock. */
  private RecoveryPoint recoveryPoint = RecoveryPoint.NONE;
  /** The active segment rolls when the next batch would take it past this (the stream's segment_bytes). */
  private long rollBytes;

  private ShardLog(Path dir, LogSettings settings, FlushScheduler flusher, Path claimed) {
    this.dir = dir;
    this.settings = settings;
    this.flusher = flusher;
    this.segments = new ConcurrentSkipListMap<>();
    this.epochs = new EpochIndex(dir);
    this.recoveryPointFile = new CheckpointFile(dir, RECOVERY_POINT);
    this.claimed = claimed;
    this.rollBytes = settings.segmentBytes();
    this.durability = new LogDurability(this, flusher, settings.flush());
    this.nanoClock = flusher == null ? System::nanoTime : flusher.nanoClock();
    this.lastUsedNanos = nanoClock.getAsLong();
  }

  /**
   * Opens (creating if absent) the log in {@code dir}, verifying it (see Recovery above).
   *
   * @throws CorruptLogException if durable data is damaged
   * @throws IOException if the directory cannot be read or is already open in this JVM (another process is kept
   *     out by the broker's lock of its data directory, {@link DataDirectoryLock})
   */
  public static ShardLog open(Path dir, LogSettings settings, FlushScheduler flusher) throws IOException {
    Path claimed = dir.toAbsolutePath().normalize();
    if (!OPEN_DIRECTORIES.add(claimed)) {
      throw new IOException("log directory " + dir + " is already open by another owner");
    }
    ShardLog shardLog;
    try {
      Files.createDirectories(dir);
      shardLog = new ShardLog(dir, settings, flusher, claimed);
    } catch (IOException | RuntimeException e) {
      OPEN_DIRECTORIES.remove(claimed);
      throw e;
    }
    try {
      new LogRecovery(shardLog).run();
      shardLog.producers.loadLazily(shardLog::rebuildProducers);
    } catch (IOException | RuntimeException e) {
      shardLog.closeFiles();
      throw e;
    }
    if (flusher != null) {
      flusher.register(shardLog);
    }
    return shardLog;
  }

  // ---- state used by LogRecovery while opening ----

  Path dir() {
    return dir;
  }

  /** The settings the log was opened with (its segment size is the default a stream's own may replace). */
  public LogSettings settings() {
    return settings;
  }

  EpochIndex epochs() {
    return epochs;
  }

  CheckpointFile recoveryPointFile() {
    return recoveryPointFile;
  }

  void recovered(List<Segment> opened, long endOffset, RecoveryPoint recoveredPoint) throws IOException {
    for (Segment s : opened) {
      segments.put(s.baseOffset(), s);
    }
    active = opened.get(opened.size() - 1);
    logEndOffset = endOffset;
    durability.durableAt(endOffset); // everything read back from disk is as durable as it gets
    synchronized (flushLock) {
      recoveryPoint = recoveredPoint;
    }
    for (Segment s : opened) {
      s.closeFiles(); // recovery read what it had to; the first append or read opens a descriptor again
    }
  }

  // ---- appends (owner thread) ----

  /**
   * Appends a batch as the leader, which assigns its offsets: {@code [returned base, base + recordCount)}.
   * The payload (an encoded RecordList) is written as it is.
   *
   * @throws InvalidBatchException if the epoch is below the log's last epoch, the count is not positive or the batch
   *     is larger than a segment; nothing is written
   * @throws UncheckedIOException if the write fails; the log is then failed
   */
  public long appendAsLeader(long leaderEpoch, int recordCount, long firstTimestamp, long maxTimestamp,
      ByteBuffer payload) {
    return appendAsLeader(leaderEpoch, recordCount, firstTimestamp, maxTimestamp, ProducerStamp.NONE, payload);
  }

  /**
   * As {@link #appendAsLeader(long, int, long, long, ByteBuffer)}, stamping the batch with its idempotent producer's
   * identity, which {@link #producers} then counts. The leader checks the stamp with {@link ProducerStates#check}
   * first; this method stores what it is given.
   */
  public long appendAsLeader(long leaderEpoch, int recordCount, long firstTimestamp, long maxTimestamp,
      ProducerStamp producer, ByteBuffer payload) {
    checkWritable();
    if (recordCount < 1) {
      throw new InvalidBatchException("a batch needs at least one record, got " + recordCount);
    }
    long lastEpoch = epochs.lastEpoch();
    if (leaderEpoch < lastEpoch || leaderEpoch < 0) {
      throw new InvalidBatchException("leader epoch " + leaderEpoch + " is below the log's last epoch " + lastEpoch);
    }
    checkSize(LogBatch.HEADER_BYTES + (long) payload.remaining());
    producers.ensureLoaded(); // before the batch is written: the load reads the log as it was
    long base = logEndOffset;
    ByteBuffer header = LogBatch.encodeHeader(base, recordCount, leaderEpoch, firstTimestamp, maxTimestamp, producer,
        payload);
    write(header, payload, base, base + recordCount, leaderEpoch);
    if (producer.idempotent()) {
      producers.onBatch(producer, base, recordCount, leaderEpoch);
    }
    return base;
  }

  /**
   * Appends batches framed by the leader, as they are (a follower's append). All are checked first (header, CRC,
   * base offset continuing this log's end, epochs not below the last epoch, size); if any fails nothing is written.
   *
   * @return the new log end offset
   * @throws InvalidBatchException naming the first bad batch
   */
  public long appendReplicated(ByteBuffer batches) {
    checkWritable();
    List<LogBatch> checked = new ArrayList<>();
    long expected = logEndOffset;
    long epoch = epochs.lastEpoch();
    BatchDecoder decoder = new BatchDecoder(batches);
    while (decoder.hasNext()) {
      LogBatch batch = decoder.next();
      if (batch.baseOffset() != expected) {
        throw new InvalidBatchException("batch " + checked.size() + " starts at offset " + batch.baseOffset()
            + " but the log continues at " + expected);
      }
      if (batch.leaderEpoch() < epoch) {
        throw new InvalidBatchException("batch " + checked.size() + " at offset " + batch.baseOffset()
            + " has leader epoch " + batch.leaderEpoch() + ", below the log's epoch " + epoch);
      }
      checkSize(batch.sizeInBytes());
      checked.add(batch);
      expected = batch.nextOffset();
      epoch = batch.leaderEpoch();
    }
    producers.ensureLoaded(); // before the batches are written: the load reads the log as it was
    ByteBuffer source = batches.slice();
    for (LogBatch batch : checked) {
      ByteBuffer header = source.duplicate().position(batch.position()).limit(batch.position() + LogBatch.HEADER_BYTES);
      write(header, batch.payload(), batch.baseOffset(), batch.nextOffset(), batch.leaderEpoch());
      producers.onBatch(batch);
    }
    return logEndOffset;
  }

  private void checkSize(long batchBytes) {
    if (batchBytes > settings.segmentBytes()) {
      throw new InvalidBatchException("a batch of " + batchBytes + " bytes is larger than felix.log.segment-bytes ("
          + settings.segmentBytes() + ")");
    }
  }

  private void write(ByteBuffer header, ByteBuffer payload, long base, long next, long epoch) {
    appendLock.lock();
    try {
      touch();
      int bytes = header.remaining() + payload.remaining();
      if (active.size() > 0 && active.size() + (long) bytes > rollBytes) {
        roll();
      }
      if (!active.fileExists()) { // a new log's first append, its segment not created by the open
        active.createFile(); // its directory entry is made durable by the flush round (makeEntriesDurable)
      }
      if (epochs.observe(epoch, base)) {
        epochsPending.set(true);
      }
      active.append(header, payload, base, next);
      logEndOffset = next; // publish to readers and to the flusher
    } catch (IOException e) {
      fail(e);
      throw new UncheckedIOException("append to " + dir + " failed; the log is failed", e);
    } finally {
      appendLock.unlock();
    }
    durability.flushAfterAppend();
  }

  /**
   * Makes durable what appends left pending: the directory entry of the active segment's file, created without a
   * directory fsync by the open or the first append (one directory fsync), and a new epoch (the epoch file, written
   * in place). Under the flush lock, before the appends it covers count as durable: the flush round calls it after
   * reading the log end it will make durable, and the appends below that end created the file and set the epoch
   * flag before they published it; the active segment changes only under the flush lock. Done here rather than in
   * the append, on the owner's thread, because a new stream's or a failover's first appends come thousands at once,
   * and there their two fsyncs each held the replica dispatcher (one thread per core) and with it every other replica
   * of the broker.
   */
  void makeEntriesDurable() throws IOException {
    if (!active.entryDurable() && active.size() > 0) { // empty, it may go in a crash: it reads as a new log again
      CheckpointFile.forceDirectory(dir);
      active.entryMadeDurable();
    }
    if (epochsPending.getAndSet(false)) {
      epochs.persist();
    }
  }

  /** Seals the active segment (fsynced, so it lies below the recovery point) and starts a new one. */
  private void roll() throws IOException {
    synchronized (flushLock) {
      long end = logEndOffset;
      makeEntriesDurable();
      active.force();
      active.writeIndexFile();
      durability.durableAt(end);
      writeRecoveryPoint(new RecoveryPoint(end, end, 0));
      Segment next = Segment.create(dir, end, settings.indexIntervalBytes());
      CheckpointFile.forceDirectory(dir);
      next.entryMadeDurable();
      segments.put(end, next);
      Segment sealed = active;
      active = next;
      sealed.closeChannel(); // fsynced above; a reader opens it again
    }
    durability.completeReached();
    ProducerSnapshot.write(dir, logEndOffset, producers);
  }

  // ---- idempotent producers (owner thread) ----

  /** The idempotent producers' state of every batch in this log; changed only by this log's appends. */
  public ProducerStates producers() {
    return producers;
  }

  /** Loads the newest producer snapshot at or below the log end and counts the batches after it. */
  private void rebuildProducers(ProducerStates into) throws IOException {
    long end = logEndOffset;
    long from = Math.max(ProducerSnapshot.loadLatest(dir, end, into).orElse(0L), logStartOffset());
    long offset = from;
    while (offset < end) {
      LogRead read = read(offset, (int) Math.min(settings.segmentBytes(), 8 << 20));
      if (read.isEmpty()) {
        throw new IOException("log " + dir + " returned nothing at offset " + offset + " below its end " + end
            + " while rebuilding its producer state");
      }
      for (BatchDecoder d = read.decoder(); d.hasNext(); ) {
        LogBatch batch = d.next();
        if (batch.baseOffset() >= from) {
          into.onBatch(batch);
        }
      }
      offset = read.nextOffset();
    }
  }

  /** Under the flush lock. */
  private void writeRecoveryPoint(RecoveryPoint point) throws IOException {
    recoveryPointFile.write(point.format());
    recoveryPoint = point;
  }

  /** The recovery point at the log end: where the active segment ends. Under the flush lock. */
  private RecoveryPoint recoveryPointAtEnd() {
    return new RecoveryPoint(logEndOffset, active.baseOffset(), active.size());
  }

  /**
   * Whether the recovery point is below {@code end}, or at it without the position that lets an open skip reading
   * the active segment (an empty active segment needs none). Under the flush lock.
   */
  private boolean recoveryPointBehind(long end) {
    return recoveryPoint.offset() < end || (!recoveryPoint.locatedIn(active.baseOffset()) && active.size() > 0);
  }

  /** An append or read uses the files now. */
  private void touch() {
    lastUsedNanos = nanoClock.getAsLong();
    if (filesClosedIdle) {
      filesClosedIdle = false;
    }
  }

  /**
   * Closes this log's files if nobody appended to or read from it for {@code idleNanos} and everything appended is
   * fsynced, moving the recovery point to the end first; the next append or read opens them again. Called by the
   * broker's {@link FlushScheduler}; never waits for the owner (see Thread-safety).
   *
   * @return whether it closed them now
   */
  boolean closeFilesIfIdle(long nowNanos, long idleNanos) {
    if (filesClosedIdle || closed || failure != null || nowNanos - lastUsedNanos < idleNanos
        || !appendLock.tryLock()) {
      return false;
    }
    try {
      synchronized (flushLock) {
        long end = logEndOffset;
        if (closed || failure != null || durability.durableOffset() < end || nowNanos - lastUsedNanos < idleNanos) {
          return false; // closed meanwhile, or an append waits for its fsync: closing now would strand it
        }
        makeEntriesDurable(); // the flush rounds that made the appends durable did it: nothing is left, as a rule
        if (recoveryPointBehind(end)) {
          writeRecoveryPoint(recoveryPointAtEnd());
        }
        for (Segment s : segments.values()) {
          s.closeFiles();
        }
        filesClosedIdle = true;
        return true;
      }
    } catch (IOException e) {
      fail(e);
      return false;
    } finally {
      appendLock.unlock();
    }
  }

  /** How many file descriptors this log holds now (its segments' open ones). */
  public int openFiles() {
    int open = 0;
    for (Segment s : segments.values()) {
      open += s.holdsFile() ? 1 : 0;
    }
    return open;
  }

  // ---- durability (LogDurability) ----

  /** Completes with the durable offset once every record below {@code offset} is fsynced. */
  public CompletionStage<Long> awaitDurable(long offset) {
    return durability.awaitDurable(offset);
  }

  /**
   * Completes once every record below {@code offset} counts as stored under the flush policy: fsynced with
   * {@code flush = always}, written with {@code flush = interval}. The replica acknowledges on this.
   */
  public CompletionStage<Long> awaitStored(long offset) {
    return durability.awaitStored(offset);
  }

  /** The offset below which records count as stored under the flush policy (see {@link #awaitStored}). */
  public long storedOffset() {
    return durability.storedOffset();
  }

  /** Whether a write, fsync or truncation failed: the log then takes no more writes and must be reopened. */
  public boolean failed() {
    return failure != null;
  }

  /** Fails the log: it takes no more writes, and every wait for durability fails with {@code e}. */
  void fail(IOException e) {
    if (failure == null) {
      failure = e;
      log.error("Log {} failed and stops accepting writes: {}", dir, e.toString());
    }
    durability.failAbove(-1, e);
  }

  /** Why the log failed, or null. */
  IOException failure() {
    return failure;
  }

  // ---- reads (any thread) ----

  /** Reads up to the log end; see {@link #read(long, int, long)}. */
  public LogRead read(long offset, int maxBytes) {
    return read(offset, maxBytes, Long.MAX_VALUE);
  }

  /**
   * Reads whole batches starting with the one that contains {@code offset}: about {@code maxBytes} at most (the first
   * batch is returned whole even if larger, so a reader always makes progress), only batches that end at or before
   * {@code upperOffset} (the commit offset, for consumers) and the log end, and from one segment per call.
   *
   * @throws OffsetOutOfRangeException if {@code offset} is below the log start or beyond the log end
   */
  public LogRead read(long offset, int maxBytes, long upperOffset) {
    for (int attempt = 0; ; attempt++) {
      long generation = truncations.get();
      long end = logEndOffset;
      long start = logStartOffset();
      if (offset < start || offset > end) {
        throw new OffsetOutOfRangeException(offset, start, end);
      }
      long limit = Math.min(upperOffset, end);
      if (offset >= limit || (generation & 1) != 0) {
        return new LogRead(ByteBuffer.allocate(0), offset);
      }
      Map.Entry<Long, Segment> entry = segments.floorEntry(offset);
      touch();
      try {
        LogRead read = entry.getValue().read(offset, maxBytes, limit);
        if (truncations.get() == generation) {
          return read;
        }
      } catch (IOException | RuntimeException e) {
        // Bytes cut or rewritten under the reader can look like anything; only a stable generation makes it real.
        if (truncations.get() == generation) {
          if (closed) {
            throw new IllegalStateException("log " + dir + " is closed");
          }
          if (e instanceof RuntimeException unexpected) {
            throw unexpected;
          }
          throw new UncheckedIOException("read of " + dir + " at offset " + offset + " failed", (IOException) e);
        }
      }
      if (attempt >= 3) {
        return new LogRead(ByteBuffer.allocate(0), offset); // truncating again and again: let the reader come back
      }
    }
  }

  /**
   * Up to {@code length} bytes of the payload of the batch holding {@code offset}, from byte {@code position} of that
   * payload on: a read of one cache entry whose place in its batch is known, instead of the whole batch. Empty when
   * the offset is outside the log or the log is truncated meanwhile (the caller then reads the whole batch).
   */
  public ByteBuffer readPayloadBytes(long offset, int position, int length) {
    long generation = truncations.get();
    if (offset < logStartOffset() || offset >= logEndOffset || (generation & 1) != 0) {
      return ByteBuffer.allocate(0);
    }
    touch();
    try {
      ByteBuffer bytes = segments.floorEntry(offset).getValue().readPayloadBytes(offset, position, length);
      return truncations.get() == generation ? bytes : ByteBuffer.allocate(0);
    } catch (IOException | RuntimeException e) {
      if (truncations.get() != generation) {
        return ByteBuffer.allocate(0); // bytes cut under the reader
      }
      if (e instanceof RuntimeException unexpected) {
        throw unexpected;
      }
      throw new UncheckedIOException("read of " + dir + " at offset " + offset + " failed", (IOException) e);
    }
  }

  /** The offset after the last appended record (published: readers see batches below it). */
  public long logEndOffset() {
    return logEndOffset;
  }

  /** The first offset held: the first segment's base offset (0 for a new log; retention moves it forward). */
  public long logStartOffset() {
    return segments.firstKey();
  }

  /** The offset below which every record is fsynced. */
  public long durableOffset() {
    return durability.durableOffset();
  }

  /** The epoch of the last batch, or -1 for an empty log. */
  public long lastEpoch() {
    return epochs.lastEpoch();
  }

  /** KIP-101: the start offset of the first epoch greater than {@code epoch}, or the log end offset if none. */
  public long endOffsetForEpoch(long epoch) {
    return epochs.endOffsetFor(epoch, logEndOffset);
  }

  /**
   * KIP-279: the largest epoch of this log that is at most {@code epoch}, and the offset where it ends here (the
   * start of the next epoch, or the log end); {@code (-1, logStartOffset)} if the log has no such epoch.
   */
  public EpochEnd epochEndFor(long epoch) {
    return epochs.epochEndFor(epoch, logStartOffset(), logEndOffset);
  }

  /** (epoch, start offset) of each leader epoch in the log, oldest first. */
  public List<EpochStart> epochStarts() {
    return epochs.entries();
  }

  public Path directory() {
    return dir;
  }

  /** Number of segment files. */
  public int segmentCount() {
    return segments.size();
  }

  // ---- segment size and retention (owner thread; LogRetention) ----

  /**
   * Sets the size at which the active segment rolls (the stream's {@code segment_bytes}); batches already written
   * stay where they are. A batch larger than this still fits: it gets a segment of its own.
   */
  public void rollAt(long segmentBytes) {
    if (segmentBytes < LogBatch.HEADER_BYTES + 1 || segmentBytes > LogSettings.MAX_SEGMENT_BYTES) {
      throw new IllegalArgumentException("segment size " + segmentBytes + " is outside [" + (LogBatch.HEADER_BYTES + 1)
          + ", " + LogSettings.MAX_SEGMENT_BYTES + "]");
    }
    rollBytes = segmentBytes;
  }

  /**
   * Deletes the oldest sealed segments past either retention limit (see {@link LogRetention}), never one holding
   * offsets at or after {@code upToOffset} (the commit offset).
   *
   * @return the log start offset afterwards
   * @throws UncheckedIOException if a deletion fails; the log is then failed
   */
  public long deleteSegmentsPastRetention(long retentionMs, long retentionBytes, long nowMillis, long upToOffset) {
    return retention.deleteSegmentsPastRetention(retentionMs, retentionBytes, nowMillis, upToOffset);
  }

  /**
   * Drops every batch and starts the log again, empty, at {@code offset} beyond its end: a follower whose whole log
   * lies below the leader's log start (retention deleted what it would fetch next) copies from the leader's start.
   * Crash-safe: the new segment is created first and the old ones deleted oldest first, so a crash leaves either the
   * old log's suffix (the new empty segment after a gap is dropped on open as a torn tail) or the new log.
   */
  public void restartAt(long offset) {
    checkWritable();
    long end = logEndOffset;
    if (offset <= end) {
      throw new IllegalArgumentException("log " + dir + " ends at " + end + ", not below " + offset);
    }
    try {
      // Every producer snapshot first, durably: one left by a crash after the new segment replaced the old ones would
      // lie below the new start and be loaded with the dropped batches' producers (without them the old log, should
      // the crash leave it, rebuilds its producers from its batches).
      if (ProducerSnapshot.deleteAbove(dir, -1)) {
        CheckpointFile.forceDirectory(dir);
      }
      changeSegments(() -> {
        Segment next = Segment.create(dir, offset, settings.indexIntervalBytes());
        CheckpointFile.forceDirectory(dir);
        next.entryMadeDurable();
        List<Segment> old = new ArrayList<>(segments.values());
        segments.put(offset, next);
        for (Segment s : old) {
          segments.remove(s.baseOffset());
          s.closeAndDelete();
        }
        active = next;
        logEndOffset = offset;
        durability.durableAt(offset);
        epochs.clear();
        epochs.persist();
        writeRecoveryPoint(new RecoveryPoint(offset, offset, 0));
        // The dropped batches' producers are the leader's business now: what it sends from here rebuilds them.
        producers.clear();
        return null;
      });
    } catch (IOException e) {
      fail(e);
      throw new UncheckedIOException("restarting " + dir + " at offset " + offset + " failed; the log is failed", e);
    }
    durability.completeReached();
    log.info("Log {} dropped offsets [.., {}) and starts again at offset {}", dir, end, offset);
  }

  // ---- truncation, close (owner thread) ----

  /**
   * Removes every batch at or after {@code offset}, durably; a batch that contains {@code offset} is removed whole,
   * so the new end is the largest batch boundary at or below {@code offset}. Waiters for removed offsets fail.
   *
   * @return the new log end offset
   * @throws OffsetOutOfRangeException if {@code offset} is below the log start
   */
  public long truncateTo(long offset) {
    checkWritable();
    long end = logEndOffset;
    if (offset >= end) {
      return end;
    }
    if (offset < logStartOffset()) {
      throw new OffsetOutOfRangeException(offset, logStartOffset(), end);
    }
    long newEnd;
    try {
      // First the producer snapshots above the cut (they count batches it removes), durably: were they left by a
      // crash during the cut, one would be loaded once the log grew past it again.
      if (ProducerSnapshot.deleteAbove(dir, offset)) {
        CheckpointFile.forceDirectory(dir);
      }
      newEnd = changeSegments(() -> {
        Segment keep = segments.floorEntry(offset).getValue();
        Segment.BatchStart cut = keep.locate(offset);
        if (cut == null) {
          throw new IOException("no batch contains offset " + offset + " in segment " + keep.name
              + " although it is below the log end " + end);
        }
        long cutAt = cut.baseOffset();
        // Crash-safe order: first lower the recovery point, so whatever a crash leaves half-cut lies after it and
        // is dropped on open; then delete segments newest first, so the files left are always a contiguous log.
        if (recoveryPoint.offset() > cutAt) {
          writeRecoveryPoint(new RecoveryPoint(cutAt, keep.baseOffset(), cut.position()));
        }
        List<Segment> later = new ArrayList<>(segments.tailMap(keep.baseOffset(), false).descendingMap().values());
        for (Segment s : later) {
          segments.remove(s.baseOffset());
          s.closeAndDelete();
        }
        keep.deleteIndexFile();
        keep.truncateTo(cut.position(), cutAt);
        active = keep;
        logEndOffset = cutAt;
        durability.truncatedTo(cutAt);
        if (epochs.truncateFrom(cutAt)) {
          epochs.persist();
        }
        if (!later.isEmpty()) {
          CheckpointFile.forceDirectory(dir);
        }
        return cutAt;
      });
    } catch (IOException e) {
      fail(e);
      throw new UncheckedIOException("truncation of " + dir + " to " + offset + " failed; the log is failed", e);
    }
    producers.loadLazily(this::rebuildProducers);
    log.info("Truncated log {} from end offset {} to {}", dir, end, newEnd);
    durability.failAbove(newEnd, new IllegalStateException("records at or after offset " + newEnd + " were truncated"));
    return newEnd;
  }

  /**
   * Fsyncs, records the end as the recovery point (unless it is there already) and closes the files. Idempotent.
   */
  @Override
  public void close() throws IOException {
    if (closed) {
      return;
    }
    synchronized (flushLock) {
      closed = true;
      try {
        if (failure == null) {
          makeDurableToEnd();
        }
      } finally {
        closeFiles();
      }
    }
    durability.completeReached();
    durability.failAbove(-1, new IllegalStateException("log " + dir + " was closed"));
  }

  /**
   * Makes everything appended so far durable and moves the recovery point to the end, leaving the log open: the first
   * half of {@link #close}, which then has nothing left to fsync unless more was appended meanwhile. A stopping broker
   * does it for all its logs at once ({@link FlushScheduler#checkpointAll}) before its replicas close them one after
   * another. Safe on any thread (under the flush lock, as a flush round); a closed or failed log is left as it is.
   */
  public void checkpoint() throws IOException {
    synchronized (flushLock) {
      if (closed || failure != null) {
        return;
      }
      makeDurableToEnd();
    }
    durability.completeReached();
  }

  /** Under the flush lock: fsyncs what is not durable yet and moves the recovery point to the end. */
  private void makeDurableToEnd() throws IOException {
    long end = logEndOffset;
    makeEntriesDurable();
    if (durability.durableOffset() < end) {
      active.force();
      durability.durableAt(end);
    }
    if (recoveryPointBehind(end)) {
      writeRecoveryPoint(recoveryPointAtEnd());
    }
  }

  /** Closes the files without fsync or recovery point: what a process crash leaves. For recovery tests. */
  void closeAsIfCrashed() throws IOException {
    synchronized (flushLock) {
      closed = true;
      closeFiles();
    }
  }

  /** Closes the log and deletes its directory with everything in it. */
  public void deleteAll() throws IOException {
    synchronized (flushLock) {
      closed = true;
      closeFiles();
    }
    durability.failAbove(-1, new IllegalStateException("log " + dir + " was deleted"));
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        Files.delete(f);
      }
    }
    Files.delete(dir);
  }

  private void closeFiles() throws IOException {
    IOException first = null;
    for (Segment s : segments.values()) {
      try {
        s.close();
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (flusher != null) {
      flusher.unregister(this);
    }
    OPEN_DIRECTORIES.remove(claimed);
    if (first != null) {
      throw first;
    }
  }

  void checkWritable() {
    if (closed) {
      throw new IllegalStateException("log " + dir + " is closed");
    }
    if (failure != null) {
      throw new IllegalStateException("log " + dir + " failed earlier (" + failure + ") and accepts no writes");
    }
  }

  @Override
  public String toString() {
    return "ShardLog(" + dir + ", end " + logEndOffset + ", durable " + durability.durableOffset() + ")";
  }

  // ---- compaction (owner thread; LogCompaction) ----

  /** Suffix of a rewritten segment before it is swapped in; such a file is not a segment and is never read. */
  public static final String CLEANED_SUFFIX = LogCompaction.CLEANED_SUFFIX;

  /** Base offsets of the sealed segments (every segment but the active one), oldest first. */
  public List<Long> sealedSegmentBases() {
    return compaction.sealedSegmentBases();
  }

  /** The offset after the last batch of the segment starting at {@code baseOffset}. */
  public long segmentEnd(long baseOffset) {
    return compaction.segmentEnd(baseOffset);
  }

  /**
   * Rewrites a sealed segment with new payloads and the same offsets, crash-safely (see {@link LogCompaction}).
   *
   * @return the segment's size in bytes afterwards
   * @throws UncheckedIOException if a step fails; the log is then failed
   */
  public long rewriteSealedSegment(long baseOffset, Function<LogBatch, ByteBuffer> payloads,
      Consumer<CompactionStep> afterStep) {
    return compaction.rewriteSealedSegment(baseOffset, payloads, afterStep);
  }

  // ---- what LogDurability, LogRetention and LogCompaction share with the log ----

  NavigableMap<Long, Segment> segments() {
    return segments;
  }

  Segment activeSegment() {
    return active;
  }

  /** Serializes fsyncs with roll, truncation, segment changes and close (see Thread-safety). */
  Object flushLock() {
    return flushLock;
  }

  boolean closedOrFailed() {
    return closed || failure != null;
  }

  /** A change of the segment files, returning a value; may throw IOException. */
  @FunctionalInterface
  interface SegmentChange<T> {
    T apply() throws IOException;
  }

  /**
   * Runs a change of the segment files (truncation, restart, retention, a compacted segment's swap) under the flush
   * lock and with the read generation odd, so that a read racing it backs off and retries instead of returning bytes
   * from before and after the change. Owner thread.
   */
  <T> T changeSegments(SegmentChange<T> change) throws IOException {
    truncations.incrementAndGet(); // odd: readers back off
    try {
      synchronized (flushLock) {
        return change.apply();
      }
    } finally {
      truncations.incrementAndGet();
    }
  }
}
