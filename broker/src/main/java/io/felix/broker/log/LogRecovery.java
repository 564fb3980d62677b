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
    long recoveryPoint = readRecoveryPoint();
    List<SegmentName> names = listSegments();
    if (names.isEmpty()) {
      if (recoveryPoint > 0) {
        throw corrupt("no segment files, but records up to " + recoveryPoint + " were durable (recovery point)");
      }
      opened.add(Segment.create(dir, 0, indexInterval));
      CheckpointFile.forceDirectory(dir);
      shardLog.recovered(opened, 0, recoveryPoint);
      rewriteEpochsIfStale();
      return;
    }
    EpochIndex epochs = shardLog.epochs();
    long expected = names.get(0).baseOffset();
    long epoch = -1;
    int sealed = trustedSealedSegments(names, recoveryPoint);
    for (int i = 0; i < sealed; i++) {
      long next = names.get(i + 1).baseOffset();
      Segment segment = Segment.openSealed(dir, names.get(i), indexInterval, next);
      if (segment == null) {
        throw corrupt("sealed segment " + names.get(i) + " does not hold offsets [" + expected + ", " + next + ")");
      }
      opened.add(segment);
      if (segment.indexRebuilt()) {
        segment.writeIndexFile();
        indexRebuilt = true;
      }
      expected = next;
    }
    epoch = epochs.lastEpoch();
    for (int i = sealed; i < names.size(); i++) {
      SegmentName name = names.get(i);
      if (name.baseOffset() != expected) {
        damaged(names, i, 0, expected, recoveryPoint, true,
            "segment starts at offset " + name.baseOffset() + " but the previous one ends at " + expected);
        break;
      }
      Segment segment = Segment.open(dir, name, indexInterval);
      opened.add(segment);
      Segment.Scan scan = segment.scan(expected, epoch, (base, batchEpoch) -> epochs.observe(batchEpoch, base));
      expected = scan.nextOffset();
      epoch = scan.lastEpoch();
      if (scan.damage() != null) {
        damaged(names, i, scan.validBytes(), expected, recoveryPoint, false, scan.problem());
        break;
      }
    }
    if (expected < recoveryPoint) {
      throw corrupt("the log ends at offset " + expected + " but records up to " + recoveryPoint
          + " were durable (recovery point): segments are missing");
    }
    long durable = makeKeptDataDurable(expected, recoveryPoint);
    shardLog.recovered(opened, expected, durable);
    rewriteEpochsIfStale();
    log.info("Opened log {}: {} segment(s) ({} trusted as sealed), offsets [{}, {}), last epoch {}, in {} ms", dir,
        opened.size(), sealed, names.get(0).baseOffset(), expected, epochs.lastEpoch(),
        (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * The opened log is served as durable up to its end (followers ack it, a leader commits it), but the batches after
   * the recovery point may have reached only the page cache before the crash: reading them back proves nothing
   * about the disk. So they are fsynced, and the recovery point moved to the end (a durable write), before the log
   * answers anyone; an index file rebuilt here is made durable the same way. Returns the new recovery point.
   */
  private long makeKeptDataDurable(long end, long recoveryPoint) throws IOException {
    if (end > recoveryPoint) {
      for (Segment segment : opened) {
        if (segment.nextOffset() > recoveryPoint) {
          segment.force();
        }
      }
      shardLog.recoveryPointFile().write(Long.toString(end)); // fsyncs the file and the directory
      log.info("Log {}: fsynced the records in [{}, {}) kept by recovery; recovery point now {}", dir, recoveryPoint,
          end, end);
      return end;
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
  private int trustedSealedSegments(List<SegmentName> names, long recoveryPoint) throws IOException {
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
    List<EpochStart> known = shardLog.epochs().readPersisted().stream()
        .filter(e -> e.startOffset() < scanFrom).toList();
    if (known.isEmpty() || known.get(0).startOffset() != names.get(0).baseOffset()) {
      log.info("Log {}: no usable epoch file for the sealed segments; verifying every segment", dir);
      return 0;
    }
    known.forEach(e -> shardLog.epochs().observe(e.epoch(), e.startOffset()));
    return sealed;
  }

  private void rewriteEpochsIfStale() throws IOException {
    EpochIndex epochs = shardLog.epochs();
    List<EpochStart> persisted = epochs.readPersisted();
    List<EpochStart> actual = epochs.entries();
    if (!persisted.equals(actual)) {
      if (!persisted.isEmpty()) {
        log.info("Log {}: epoch file listed {}, the segments hold {}; rewriting it", dir, persisted, actual);
      }
      epochs.persist();
    }
  }

  private long readRecoveryPoint() throws IOException {
    Optional<String> text = shardLog.recoveryPointFile().read();
    if (text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text.get().trim());
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
