package io.felix.broker.log;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a {@link ShardLog}'s segments: verifies every batch, drops a damaged tail after the recovery point (what a
 * crash leaves), refuses damage below it with {@link CorruptLogException}, and rebuilds the offset and epoch indexes.
 */
final class LogRecovery {
  private static final Logger log = LoggerFactory.getLogger(ShardLog.class);

  private final ShardLog shardLog;
  private final Path dir;
  private final int indexInterval;
  private final List<Segment> opened = new ArrayList<>();
  /** Sealed segments whose index file was unusable and rebuilt from the batch headers: written back, durably. */
  private boolean indexRebuilt;

  LogRecovery(ShardLog shardLog) {
    this.shardLog = shardLog;
    this.dir = shardLog.dir();
    this.indexInterval = shardLog.settings().indexIntervalBytes();
  }

  void run() throws IOException {
    try {
      recover();
    } catch (IOException | RuntimeException e) {
      closeOpened();
      throw e;
    }
  }

  private void recover() throws IOException {
    long started = System.nanoTime();
    RecoveryPoint recoveryPoint = readRecoveryPoint();
    List<SegmentName> names = listSegments();
    if (names.isEmpty() || neverWritten(names, recoveryPoint)) {
      if (recoveryPoint.offset() > 0) {
        throw corrupt("no segment files, but records up to " + recoveryPoint.offset()
            + " were durable (recovery point)");
      }
      // A new log. Its first segment's file and its epochs file are created now, without an fsync, and left closed:
      // the first append (thousands at once in a new stream) then creates nothing, and its flush round fsyncs the
      // directory once and writes the epoch in place, instead of creating two files and fsyncing the directory twice.
      List<EpochStart> persisted = readPersistedEpochs();
      if (!names.isEmpty()) {
        opened.add(Segment.neverWritten(dir, names.get(0), indexInterval));
      } else if (persisted.isEmpty() && !Files.exists(dir.resolve(EpochIndex.FILE_NAME))) {
        opened.add(Segment.createdClosed(dir, 0, indexInterval));
        shardLog.epochs().createEmptyFile();
      } else {
        opened.add(Segment.withoutFile(dir, 0, indexInterval));
      }
      shardLog.recovered(opened, 0, recoveryPoint);
      rewriteEpochsIfStale(persisted);
      return;
    }
    EpochIndex epochs = shardLog.epochs();
    List<EpochStart> persistedEpochs = readPersistedEpochs();
    long expected = names.get(0).baseOffset();
    int sealed = trustedSealedSegments(names, recoveryPoint.offset(), persistedEpochs);
    for (int i = 0; i < sealed; i++) {
      long next = names.get(i + 1).baseOffset();
      Segment segment = Segment.trustedSealed(dir, names.get(i), indexInterval, next);
      if (segment == null) {
        throw corrupt("sealed segment " + names.get(i) + " does not hold offsets [" + expected + ", " + next + ")");
      }
      opened.add(segment);
      if (!Segment.indexFileLooksUsable(dir, names.get(i))) {
        // Without a usable index file the headers must chain; checked (and the index written back) before serving.
        if (!segment.indexNow()) {
          throw corrupt("sealed segment " + names.get(i) + " does not hold offsets [" + expected + ", " + next + ")");
        }
        segment.writeIndexFile();
        indexRebuilt = true;
      }
      expected = next;
    }
    long epoch = epochs.lastEpoch();
    int trustedPrefixSegments = 0;
    for (int i = sealed; i < names.size(); i++) {
      SegmentName name = names.get(i);
      if (name.baseOffset() != expected) {
        damaged(names, i, 0, expected, recoveryPoint.offset(), true,
            "segment starts at offset " + name.baseOffset() + " but the previous one ends at " + expected);
        break;
      }
      Segment segment = Segment.existing(dir, name, indexInterval);
      opened.add(segment);
      int from = 0;
      if (i == sealed && trustsPrefix(name, recoveryPoint, persistedEpochs)) {
        // Below the recovery point: durable and intact. Only what a crash can have torn after it is read.
        persistedEpochs.stream().filter(e -> e.startOffset() < recoveryPoint.offset())
            .forEach(e -> epochs.observe(e.epoch(), e.startOffset()));
        epoch = epochs.lastEpoch();
        segment.trustPrefix(recoveryPoint.position(), recoveryPoint.offset());
        from = recoveryPoint.position();
        expected = recoveryPoint.offset();
        trustedPrefixSegments = 1;
        if (i == names.size() - 1 && segment.fileSize() == from) {
          break; // nothing after the recovery point: nothing to read at all
        }
      }
      Segment.Scan scan = segment.scan(from, expected, epoch, (base, batchEpoch) -> epochs.observe(batchEpoch, base));
      expected = scan.nextOffset();
      epoch = scan.lastEpoch();
      if (scan.damage() != null) {
        damaged(names, i, scan.validBytes(), expected, recoveryPoint.offset(), false, scan.problem());
        break;
      }
    }
    if (expected < recoveryPoint.offset()) {
      throw corrupt("the log ends at offset " + expected + " but records up to " + recoveryPoint.offset()
          + " were durable (recovery point): segments are missing");
    }
    for (Segment s : opened.subList(0, opened.size() - 1)) {
      s.sealedBelow(); // every segment but the last has its index file (written at roll, or back above)
    }
    RecoveryPoint durable = makeKeptDataDurable(expected, recoveryPoint);
    shardLog.recovered(opened, expected, durable);
    rewriteEpochsIfStale(persistedEpochs);
    log.debug("Opened log {}: {} segment(s) ({} trusted as sealed, {} with a trusted prefix), offsets [{}, {}), "
        + "last epoch {}, in {} ms", dir, opened.size(), sealed, trustedPrefixSegments, names.get(0).baseOffset(),
        expected, epochs.lastEpoch(), (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * With {@code verify-on-open = unflushed}: whether the bytes of {@code name} before the recovery point are trusted
   * without reading them. Only when the recovery point says where it lies in this segment, and the epoch file
   * names the epochs of the offsets before it (starting at the log's first offset, like for sealed segments).
   */
  private boolean trustsPrefix(SegmentName name, RecoveryPoint recoveryPoint, List<EpochStart> persistedEpochs)
      throws IOException {
    if (shardLog.settings().verifyOnOpen() != LogSettings.VerifyOnOpen.UNFLUSHED
        || !recoveryPoint.locatedIn(name.baseOffset()) || recoveryPoint.offset() == name.baseOffset()) {
      return false;
    }
    List<EpochStart> known = persistedEpochs.stream().filter(e -> e.startOffset() < recoveryPoint.offset()).toList();
    if (known.isEmpty() || known.get(0).startOffset() > name.baseOffset()) {
      return false; // the epoch of the segment's first batch is not known
    }
    return Files.size(name.logFile(dir)) >= recoveryPoint.position();
  }

  /**
   * The opened log is served as durable up to its end (followers ack it, a leader commits it), but the batches after
   * the recovery point may have reached only the page cache before the crash: reading them back proves nothing
   * about the disk. So they are fsynced, and the recovery point moved to the end (a durable write), before the log
   * answers anyone; an index file rebuilt here is made durable the same way. Returns the new recovery point.
   */
  private RecoveryPoint makeKeptDataDurable(long end, RecoveryPoint recoveryPoint) throws IOException {
    if (end > recoveryPoint.offset()) {
      for (Segment segment : opened) {
        if (segment.nextOffset() > recoveryPoint.offset()) {
          segment.force();
        }
      }
      Segment last = opened.get(opened.size() - 1);
      RecoveryPoint atEnd = new RecoveryPoint(end, last.baseOffset(), last.size());
      shardLog.recoveryPointFile().write(atEnd.format()); // fsyncs the file and the directory
      log.debug("Log {}: fsynced the records in [{}, {}) kept by recovery; recovery point now {}", dir,
          recoveryPoint.offset(), end, end);
      return atEnd;
    }
    if (indexRebuilt) {
      CheckpointFile.forceDirectory(dir);
    }
    return recoveryPoint;
  }

  /**
   * Handles damage found in segment {@code index} at byte {@code position}, where offset {@code offset} was expected.
   * With {@code dropSegment} the whole segment goes (its name is wrong); otherwise it is cut at the position.
   */
  private void damaged(List<SegmentName> names, int index, int position, long offset, long recoveryPoint,
      boolean dropSegment, String problem) throws IOException {
    SegmentName name = names.get(index);
    if (offset < recoveryPoint) {
      throw corrupt("segment " + name + " is damaged at byte " + position + " (offset " + offset + "): " + problem
          + "; records up to the recovery point " + recoveryPoint + " were durable, so this is corruption");
    }
    long dropped = 0;
    if (dropSegment) {
      dropped += Files.size(name.logFile(dir));
      Files.delete(name.logFile(dir));
      Files.deleteIfExists(name.indexFile(dir));
    } else {
      Segment segment = opened.get(opened.size() - 1);
      dropped += segment.fileSize() - position;
      segment.deleteIndexFile();
      segment.truncateTo(position, offset);
    }
    for (SegmentName later : names.subList(index + 1, names.size())) {
      dropped += Files.size(later.logFile(dir));
      Files.delete(later.logFile(dir));
      Files.deleteIfExists(later.indexFile(dir));
    }
    CheckpointFile.forceDirectory(dir);
    log.warn("Recovering log {}: dropped {} bytes from offset {} (segment {}, byte {}): {}; this is the unflushed tail "
        + "a crash leaves, after the recovery point {}", dir, dropped, offset, name, position, problem, recoveryPoint);
  }

  private void closeOpened() {
    for (Segment s : opened) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already failing
      }
    }
  }

  private CorruptLogException corrupt(String problem) {
    log.error("Log {} is corrupt and will not be served: {}", dir, problem);
    return new CorruptLogException("log " + dir + ": " + problem);
  }

  /**
   * With {@code verify-on-open = unflushed}: how many leading segments lie wholly below the recovery point and are
   * trusted without reading their batches (never the last one). Their epochs come from the epoch file, which is
   * loaded into the log's epoch index here; without one, nothing is trusted.
   */
  private int trustedSealedSegments(List<SegmentName> names, long recoveryPoint, List<EpochStart> persistedEpochs) {
    if (shardLog.settings().verifyOnOpen() != LogSettings.VerifyOnOpen.UNFLUSHED) {
      return 0;
    }
    int sealed = 0;
    while (sealed < names.size() - 1 && names.get(sealed + 1).baseOffset() <= recoveryPoint) {
      sealed++;
    }
    if (sealed == 0) {
      return 0;
    }
    long scanFrom = names.get(sealed).baseOffset();
    List<EpochStart> known = persistedEpochs.stream().filter(e -> e.startOffset() < scanFrom).toList();
    if (known.isEmpty() || known.get(0).startOffset() != names.get(0).baseOffset()) {
      log.info("Log {}: no usable epoch file for the sealed segments; verifying every segment", dir);
      return 0;
    }
    known.forEach(e -> shardLog.epochs().observe(e.epoch(), e.startOffset()));
    return sealed;
  }

  /** A new log opened before and never written: one empty segment at offset 0, nothing durable above 0. */
  private boolean neverWritten(List<SegmentName> names, RecoveryPoint recoveryPoint) throws IOException {
    return names.size() == 1 && names.get(0).baseOffset() == 0 && recoveryPoint.offset() == 0
        && Files.size(names.get(0).logFile(dir)) == 0;
  }

  private List<EpochStart> readPersistedEpochs() throws IOException {
    return shardLog.epochs().readPersisted();
  }

  private void rewriteEpochsIfStale(List<EpochStart> persisted) throws IOException {
    EpochIndex epochs = shardLog.epochs();
    List<EpochStart> actual = epochs.entries();
    if (!persisted.equals(actual)) {
      if (!persisted.isEmpty()) {
        log.info("Log {}: epoch file listed {}, the segments hold {}; rewriting it", dir, persisted, actual);
      }
      epochs.persist();
    }
  }

  private RecoveryPoint readRecoveryPoint() throws IOException {
    Optional<String> text = shardLog.recoveryPointFile().read();
    if (text.isEmpty()) {
      return RecoveryPoint.NONE;
    }
    try {
      return RecoveryPoint.parse(text.get());
    } catch (NumberFormatException e) {
      // Written atomically, so garbage here is itself corruption; trust nothing below it would be unsafe.
      throw corrupt("recovery point file holds '" + text.get().trim() + "', not an offset");
    }
  }

  private List<SegmentName> listSegments() throws IOException {
    List<SegmentName> names = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SegmentName.LOG_SUFFIX)) {
      for (Path f : files) {
        SegmentName.parse(f.getFileName().toString()).ifPresent(names::add);
      }
    }
    Collections.sort(names);
    return names;
  }
}
