package io.felix.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Compaction's access to one {@link ShardLog}: which sealed segments there are, and the crash-safe rewrite of one of
 * them with new payloads and the same offsets. What to keep is the caller's business (a cache's cleaner); this class
 * only guarantees that the files on disk are a correct log after every step ({@link CompactionStep}).
 *
 * <h2>Thread-safety</h2>
 * Owner thread only (the replica actor, as for appends). The rewritten segment is written and fsynced beside the old
 * one without any lock (nobody reads a {@value #CLEANED_SUFFIX} file); only the swap runs with the log's read
 * generation odd and under its flush lock ({@link ShardLog#changeSegments}), so a racing read retries and then reads
 * the rewritten segment.
 */
final class LogCompaction {
  /** Suffix of a rewritten segment before it is swapped in; such a file is not a segment and is never read. */
  static final String CLEANED_SUFFIX = ".cleaned";

  private final ShardLog log;

  LogCompaction(ShardLog log) {
    this.log = log;
  }

  /** Base offsets of the sealed segments (every segment but the active one), oldest first. */
  List<Long> sealedSegmentBases() {
    return List.copyOf(log.segments().headMap(log.activeSegment().baseOffset()).keySet());
  }

  /** The offset after the last batch of the segment starting at {@code baseOffset}. */
  long segmentEnd(long baseOffset) {
    return log.segments().get(baseOffset).nextOffset();
  }

  /**
   * Rewrites a sealed segment keeping every batch's offsets, count, epoch, timestamps and producer: each batch's
   * payload is replaced by what {@code payloads} returns for it (its own payload to keep it), so a compaction that
   * blanks superseded records never moves an offset. Written beside the segment, fsynced, swapped in by a rename,
   * the directory fsynced; readers racing the swap retry. {@code afterStep} is told of each step done (tests take
   * the files as a kill would leave them there).
   *
   * @return the segment's size in bytes afterwards
   * @throws UncheckedIOException if a step fails; the log is then failed
   */
  long rewriteSealedSegment(long baseOffset, Function<LogBatch, ByteBuffer> payloads,
      Consumer<CompactionStep> afterStep) {
    log.checkWritable();
    Path dir = log.dir();
    Segment old = log.segments().get(baseOffset);
    if (old == null || old == log.activeSegment()) {
      throw new IllegalArgumentException("no sealed segment starts at offset " + baseOffset + " in " + dir);
    }
    Path cleaned = dir.resolve(old.name.logFileName() + CLEANED_SUFFIX);
    try {
      Files.deleteIfExists(cleaned); // a rewrite a crash interrupted before its swap
      writeRewritten(old, payloads, cleaned);
      afterStep.accept(CompactionStep.CLEANED_WRITTEN);
      old.deleteIndexFile();
      CheckpointFile.forceDirectory(dir);
      afterStep.accept(CompactionStep.INDEX_DELETED);
      Segment fresh = log.changeSegments(() -> {
        Files.move(cleaned, old.name.logFile(dir), StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        CheckpointFile.forceDirectory(dir);
        Segment swapped = Segment.trustedSealed(dir, old.name, log.settings().indexIntervalBytes(), old.nextOffset());
        if (swapped == null || !swapped.indexNow()) {
          throw new IOException("the rewritten segment " + old.name + " of " + dir + " does not chain");
        }
        log.segments().put(baseOffset, swapped);
        old.close();
        return swapped;
      });
      afterStep.accept(CompactionStep.SWAPPED);
      fresh.writeIndexFile();
      afterStep.accept(CompactionStep.INDEX_WRITTEN);
      return fresh.size();
    } catch (IOException e) {
      log.fail(e);
      throw new UncheckedIOException("rewriting segment " + old.name + " of " + dir + " failed; the log is failed", e);
    }
  }

  /** Writes the segment's batches with their new payloads to {@code cleaned}, and fsyncs it. */
  private static void writeRewritten(Segment old, Function<LogBatch, ByteBuffer> payloads, Path cleaned)
      throws IOException {
    try (FileChannel out = FileChannel.open(cleaned, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      long at = old.baseOffset();
      while (at < old.nextOffset()) {
        LogRead read = old.read(at, 1 << 20, old.nextOffset());
        if (read.isEmpty()) {
          throw new IOException("segment " + old.name + " of " + cleaned.getParent() + " returned nothing at offset "
              + at);
        }
        for (BatchDecoder batches = read.decoder(); batches.hasNext(); ) {
          LogBatch batch = batches.next();
          ByteBuffer whole = LogBatch.encode(batch.baseOffset(), batch.recordCount(), batch.leaderEpoch(),
              batch.firstTimestamp(), batch.maxTimestamp(), batch.producer(), payloads.apply(batch));
          while (whole.hasRemaining()) {
            out.write(whole);
          }
        }
        at = read.nextOffset();
      }
      out.force(true);
    }
  }
}
