package io.felix.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The start offset of each leader epoch in a log, for divergence checks (Kafka's KIP-101). Persisted beside the
 * segments in {@value #FILE_NAME}, one {@code epoch startOffset} line per epoch, replaced atomically on each change
 * (a new epoch or a truncation: rare). The segments are the source of truth: on open the log rebuilds the index
 * from the batches it verifies and rewrites the file if it disagrees.
 *
 * <p>Thread-safety: the owner thread changes it; any thread may query it (methods are synchronized).
 */
final class EpochIndex {
  static final String FILE_NAME = "leader-epochs";

  private final List<EpochStart> entries = new ArrayList<>();
  private final CheckpointFile file;

  EpochIndex(Path dir) {
    this.file = new CheckpointFile(dir, FILE_NAME);
  }

  /** The entries as persisted, or empty if there is no file; a malformed file reads as empty (it is rebuilt). */
  List<EpochStart> readPersisted() throws IOException {
    List<EpochStart> read = new ArrayList<>();
    String text;
    try {
      text = file.read().orElse("");
    } catch (CorruptLogException damaged) {
      return List.of();
    }
    for (String line : text.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      String[] parts = line.trim().split(" ");
      try {
        read.add(new EpochStart(Long.parseLong(parts[0]), Long.parseLong(parts[1])));
      } catch (RuntimeException e) {
        return List.of();
      }
    }
    return read;
  }

  /** Creates the file of a new log empty, so that its first epoch is written in place (the caller fsyncs the directory). */
  void createEmptyFile() throws IOException {
    file.createEmpty();
  }

  /** Records an epoch seen in a batch at {@code baseOffset} (only a higher epoch adds an entry); not persisted. */
  synchronized boolean observe(long epoch, long baseOffset) {
    if (entries.isEmpty() || epoch > entries.get(entries.size() - 1).epoch()) {
      entries.add(new EpochStart(epoch, baseOffset));
      return true;
    }
    return false;
  }

  /** Drops the epochs that start at or after {@code endOffset}; returns whether anything changed. */
  synchronized boolean truncateFrom(long endOffset) {
    boolean changed = false;
    while (!entries.isEmpty() && entries.get(entries.size() - 1).startOffset() >= endOffset) {
      entries.remove(entries.size() - 1);
      changed = true;
    }
    return changed;
  }

  /**
   * Retention moved the log start to {@code startOffset}: drops the epochs that end at or before it and starts the
   * first one kept there (Kafka's truncateFromStart), so that the first entry names the first segment's base offset.
   * Returns whether anything changed.
   */
  synchronized boolean truncateFromStart(long startOffset) {
    boolean changed = false;
    while (entries.size() > 1 && entries.get(1).startOffset() <= startOffset) {
      entries.remove(0);
      changed = true;
    }
    if (!entries.isEmpty() && entries.get(0).startOffset() < startOffset) {
      entries.set(0, new EpochStart(entries.get(0).epoch(), startOffset));
      changed = true;
    }
    return changed;
  }

  /** Forgets every epoch: the log dropped all its batches to start again further on. */
  synchronized void clear() {
    entries.clear();
  }

  void persist() throws IOException {
    StringBuilder text = new StringBuilder();
    for (EpochStart e : entries()) {
      text.append(e.epoch()).append(' ').append(e.startOffset()).append('\n');
    }
    file.write(text.toString());
  }

  synchronized List<EpochStart> entries() {
    return List.copyOf(entries);
  }

  /** The last epoch, or -1 for an empty log. */
  synchronized long lastEpoch() {
    return entries.isEmpty() ? -1 : entries.get(entries.size() - 1).epoch();
  }

  /**
   * KIP-101: the start offset of the first epoch greater than {@code epoch}, or {@code logEndOffset} if there is
   * none. A follower whose last epoch is {@code epoch} truncates to this offset (when its log is longer).
   */
  synchronized long endOffsetFor(long epoch, long logEndOffset) {
    for (EpochStart e : entries) {
      if (e.epoch() > epoch) {
        return e.startOffset();
      }
    }
    return logEndOffset;
  }

  /** KIP-279: the largest epoch at most {@code epoch} and where it ends; see {@link EpochEnd}. */
  synchronized EpochEnd epochEndFor(long epoch, long logStartOffset, long logEndOffset) {
    EpochStart floor = null;
    for (EpochStart e : entries) {
      if (e.epoch() > epoch) {
        return floor == null ? new EpochEnd(-1, logStartOffset) : new EpochEnd(floor.epoch(), e.startOffset());
      }
      floor = e;
    }
    return floor == null ? new EpochEnd(-1, logStartOffset) : new EpochEnd(floor.epoch(), logEndOffset);
  }
}
