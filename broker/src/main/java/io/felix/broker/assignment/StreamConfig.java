package io.felix.broker.assignment;

import java.util.ArrayList;
import java.util.List;

/**
 * A stream's own settings, each overriding the broker's default from {@code felix.log} (null: the default applies,
 * as for streams created before these settings existed). Persisted with the stream's creation and each change
 * (see the placement events) and carried to every broker in the assignment table.
 *
 * @param retentionMs sealed segments whose newest record is older than this are deleted; -1: kept for any time
 * @param retentionBytes per shard: the oldest sealed segments are deleted while the log is larger without them;
 *     -1: no limit
 * @param segmentBytes a segment rolls when the next batch would take it past this size
 * @param cache non-null for a cache (keyed entries read by key, see {@link CacheConfig}); null for a stream
 */
public record StreamConfig(Long retentionMs, Long retentionBytes, Long segmentBytes, CacheConfig cache) {
  /** No override: every setting is the broker's default. */
  public static final StreamConfig DEFAULTS = new StreamConfig(null, null, null);
  /** Segment sizes a stream may ask for: positions in a segment are 32-bit; below 1 KiB means a file per batch. */
  public static final long MIN_SEGMENT_BYTES = 1024;
  public static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;

  /** A stream's settings (not a cache). */
  public StreamConfig(Long retentionMs, Long retentionBytes, Long segmentBytes) {
    this(retentionMs, retentionBytes, segmentBytes, null);
  }

  /**
   * Whether these are a cache's settings rather than a stream's. Not named isCache: Jackson (the journal) would take
   * that for a boolean property "cache" and clash with the component.
   */
  public boolean forCache() {
    return cache != null;
  }

  public StreamConfig {
    List<String> problems = problems(retentionMs, retentionBytes, segmentBytes);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
  }

  /** What is wrong with these values (empty when nothing): for a clear error naming every bad setting. */
  public static List<String> problems(Long retentionMs, Long retentionBytes, Long segmentBytes) {
    List<String> problems = new ArrayList<>();
    if (retentionMs != null && retentionMs != -1 && retentionMs < 1) {
      problems.add("retention_ms must be -1 (unlimited) or at least 1, got " + retentionMs);
    }
    if (retentionBytes != null && retentionBytes != -1 && retentionBytes < 0) {
      problems.add("retention_bytes must be -1 (unlimited) or at least 0, got " + retentionBytes);
    }
    if (segmentBytes != null && (segmentBytes < MIN_SEGMENT_BYTES || segmentBytes > MAX_SEGMENT_BYTES)) {
      problems.add("segment_bytes must be between " + MIN_SEGMENT_BYTES + " and " + MAX_SEGMENT_BYTES + ", got "
          + segmentBytes);
    }
    return problems;
  }

  /** These settings with every setting {@code change} sets replaced (its nulls leave a setting as it is). */
  public StreamConfig changedBy(StreamConfig change) {
    return new StreamConfig(
        change.retentionMs != null ? change.retentionMs : retentionMs,
        change.retentionBytes != null ? change.retentionBytes : retentionBytes,
        change.segmentBytes != null ? change.segmentBytes : segmentBytes,
        change.cache != null ? change.cache : cache);
  }
}
