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

  LogRecovery(ShardLog shardLog) {
    this.shardLog = shardLog;
    this.dir = shardLog.dir();
    this.indexInterval = shardLog.settings().indexIntervalBytes();
  }

  void run() throws IOException {
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
    for (int i = 0; i < names.size(); i++) {
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
    shardLog.recovered(opened, expected, recoveryPoint);
    rewriteEpochsIfStale();
    log.info("Opened log {}: {} segment(s), offsets [{}, {}), last epoch {}, verified in {} ms", dir, opened.size(),
        names.get(0).baseOffset(), expected, epochs.lastEpoch(), (System.nanoTime() - started) / 1_000_000);
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
    } else {
      Segment segment = opened.get(opened.size() - 1);
      dropped += segment.fileSize() - position;
      segment.truncateTo(position, offset);
    }
    for (SegmentName later : names.subList(index + 1, names.size())) {
      dropped += Files.size(later.logFile(dir));
      Files.delete(later.logFile(dir));
    }
    CheckpointFile.forceDirectory(dir);
    log.warn("Recovering log {}: dropped {} bytes from offset {} (segment {}, byte {}): {}; this is the unflushed tail "
        + "a crash leaves, after the recovery point {}", dir, dropped, offset, name, position, problem, recoveryPoint);
  }

  private CorruptLogException corrupt(String problem) {
    for (Segment s : opened) {
      try {
        s.close();
      } catch (IOException ignored) {
        // already failing
      }
    }
    log.error("Log {} is corrupt and will not be served: {}", dir, problem);
    return new CorruptLogException("log " + dir + ": " + problem);
  }

  private void rewriteEpochsIfStale() throws IOException {
    EpochIndex epochs = shardLog.epochs();
    List<EpochIndex.Entry> persisted = epochs.readPersisted();
    List<EpochIndex.Entry> actual = epochs.entries();
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
