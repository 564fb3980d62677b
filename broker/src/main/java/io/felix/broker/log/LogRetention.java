package io.felix.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Time and size retention of one {@link ShardLog}: deletes whole sealed segments, oldest first, past either limit.
 * The log start offset is not stored anywhere (it is the first segment's base offset), so deleting the oldest segment
 * files and then fsyncing the directory is the whole change: the files left are always a contiguous log, also after
 * a crash halfway, and a restart finds the start where retention left it.
 *
 * <h2>Thread-safety</h2>
 * Owner thread only (the replica actor, as for appends). The deletion runs with the log's read generation odd and
 * under its flush lock ({@link ShardLog#changeSegments}), so a racing read retries and sees the new start, and no
 * fsync or idle close uses a deleted segment.
 */
final class LogRetention {
  /** The log's lines all come from one logger, as recovery's do. */
  private static final Logger log = LoggerFactory.getLogger(ShardLog.class);

  private final ShardLog shardLog;

  LogRetention(ShardLog shardLog) {
    this.shardLog = shardLog;
  }

  /**
   * Deletes the oldest sealed segments while the oldest is past either limit: its largest timestamp older than
   * {@code retentionMs} before {@code nowMillis}, or the log larger than {@code retentionBytes} without it (Kafka's
   * rule); a negative limit is no limit. Never the active segment, and never a segment holding offsets at or after
   * {@code upToOffset} (the commit offset: retention deletes only what every consumer could have read).
   *
   * @return the log start offset afterwards
   * @throws UncheckedIOException if a deletion fails; the log is then failed
   */
  long deleteSegmentsPastRetention(long retentionMs, long retentionBytes, long nowMillis, long upToOffset) {
    shardLog.checkWritable();
    List<Segment> doomed = new ArrayList<>();
    long total = 0;
    for (Segment s : shardLog.segments().values()) {
      total += s.size();
    }
    try {
      for (Segment s : shardLog.segments().headMap(shardLog.activeSegment().baseOffset()).values()) {
        boolean bySize = retentionBytes >= 0 && total - s.size() >= retentionBytes;
        boolean byTime = retentionMs >= 0 && nowMillis - s.largestTimestamp() > retentionMs;
        if (s.nextOffset() > upToOffset || !(bySize || byTime)) {
          break;
        }
        doomed.add(s);
        total -= s.size();
      }
      if (doomed.isEmpty()) {
        return shardLog.logStartOffset();
      }
      shardLog.changeSegments(() -> {
        for (Segment s : doomed) {
          shardLog.segments().remove(s.baseOffset()); // oldest first: a crash leaves a contiguous suffix
          s.closeAndDelete();
        }
        if (shardLog.epochs().truncateFromStart(shardLog.logStartOffset())) {
          shardLog.epochs().persist();
        }
        CheckpointFile.forceDirectory(shardLog.dir());
        return null;
      });
    } catch (IOException e) {
      shardLog.fail(e);
      throw new UncheckedIOException("retention in " + shardLog.dir() + " failed; the log is failed", e);
    }
    log.info("Retention deleted {} segment(s) of log {}: it now starts at offset {} ({} bytes kept)", doomed.size(),
        shardLog.dir(), shardLog.logStartOffset(), total);
    return shardLog.logStartOffset();
  }
}
