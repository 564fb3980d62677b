package io.felix.broker.log;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * When the appends of one {@link ShardLog} are stored: its durable offset (below it every record is fsynced), the
 * group-commit flushes it asks of the broker's {@link FlushScheduler}, and the futures waiting for an offset to be
 * durable or stored.
 *
 * <p>Group commit: after an append the log asks the flusher for one flush round unless one is already asked for;
 * the round fsyncs the active segment once for every append made before it started (older segments were fsynced
 * when they rolled). With {@code flush = always} a batch is stored once fsynced; with {@code flush = interval}
 * once written (the flusher still fsyncs within the interval).
 *
 * <h2>Thread-safety</h2>
 * The log's owner thread asks for flushes ({@link #flushAfterAppend}) and sets the durable offset at roll,
 * truncation, restart and close, under the log's flush lock ({@link #durableAt}, {@link #truncatedTo}); a flusher
 * thread runs {@link #flushRound} under the same lock, so an fsync never races a roll or a truncation of the segment
 * it forces. Any thread may read the offsets and await. Futures complete on the thread that moved the durable offset
 * (a flusher thread, or the owner at roll and close) and their callbacks must not block.
 */
final class LogDurability {
  private final ShardLog log;
  private final FlushScheduler flusher;
  private final LogSettings.Flush flush;
  private final AtomicBoolean flushRequested = new AtomicBoolean();
  private final DurableWaiters waiters = new DurableWaiters(() -> this.durableOffset);
  private volatile long durableOffset;

  LogDurability(ShardLog log, FlushScheduler flusher, LogSettings.Flush flush) {
    this.log = log;
    this.flusher = flusher;
    this.flush = flush;
  }

  /** The offset below which every record is fsynced. */
  long durableOffset() {
    return durableOffset;
  }

  /** The offset below which records count as stored under the flush policy (see {@link #awaitStored}). */
  long storedOffset() {
    return flush == LogSettings.Flush.INTERVAL ? log.logEndOffset() : durableOffset;
  }

  /** Everything below {@code offset} is fsynced now (read back at open, fsynced at roll or close, a restart). */
  void durableAt(long offset) {
    durableOffset = offset;
  }

  /** The log was cut at {@code newEnd}: nothing at or after it is durable any more. Under the flush lock. */
  void truncatedTo(long newEnd) {
    durableOffset = Math.min(durableOffset, newEnd);
  }

  /** Asks for a flush round after an append, unless one is asked for and has not started yet. Owner thread. */
  void flushAfterAppend() {
    if (flushRequested.compareAndSet(false, true) && !flusher.request(this::flushRound)) {
      flushRound(); // the broker is stopping its flusher: fsync here rather than leave the batch unflushed
    }
  }

  /** Runs on a flusher thread: fsyncs the active segment if it has unflushed batches. */
  private void flushRound() {
    flushRequested.set(false);
    synchronized (log.flushLock()) {
      if (log.closedOrFailed()) {
        return;
      }
      long end = log.logEndOffset(); // batches below were written before this read, to the active segment or older
      if (end > durableOffset) {
        try {
          log.makeEntriesDurable(); // a new segment file's directory entry, a new epoch: before the data counts
          log.activeSegment().force();
          flusher.countFsync();
          durableOffset = end;
        } catch (IOException e) {
          log.fail(e);
        }
      }
    }
    waiters.completeReached();
  }

  /** Completes with the durable offset once every record below {@code offset} is fsynced. */
  CompletionStage<Long> awaitDurable(long offset) {
    IOException failed = log.failure();
    if (failed != null) {
      return CompletableFuture.failedFuture(failed);
    }
    long durable = durableOffset;
    if (durable >= offset) {
      return CompletableFuture.completedFuture(durable);
    }
    long end = log.logEndOffset();
    if (offset > end) {
      throw new IllegalArgumentException("offset " + offset + " is beyond the log end " + end);
    }
    return waiters.await(offset);
  }

  /**
   * Completes once every record below {@code offset} counts as stored under the flush policy: fsynced with
   * {@code flush = always}, written with {@code flush = interval}.
   */
  CompletionStage<Long> awaitStored(long offset) {
    if (flush == LogSettings.Flush.INTERVAL) {
      long end = log.logEndOffset();
      if (offset > end) {
        throw new IllegalArgumentException("offset " + offset + " is beyond the log end " + end);
      }
      return CompletableFuture.completedFuture(end);
    }
    return awaitDurable(offset);
  }

  /** Completes the futures whose offset the durable offset reached. */
  void completeReached() {
    waiters.completeReached();
  }

  /** Fails the futures waiting for an offset above {@code offset} (-1: all of them). */
  void failAbove(long offset, Exception cause) {
    waiters.failAbove(offset, cause);
  }
}
