package io.felix.broker.log;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.broker.assignment.StreamConfig;
import java.time.Duration;

/**
 * The broker's retention defaults and the cleaner's pace, from the {@code felix.log} subtree (see reference.conf).
 * A stream's own settings ({@link StreamConfig}) override the defaults.
 *
 * @param retentionMs default time limit; -1: none
 * @param retentionBytes default size limit per shard; -1: none
 * @param checkInterval how often each replica looks for segments past its limits
 */
public record RetentionSettings(long retentionMs, long retentionBytes, Duration checkInterval) {
  public static final long UNLIMITED = -1;

  public RetentionSettings {
    if (retentionMs != UNLIMITED && retentionMs < 1) {
      throw new IllegalArgumentException("felix.log.retention-ms must be -1 (unlimited) or at least 1, got "
          + retentionMs);
    }
    if (retentionBytes != UNLIMITED && retentionBytes < 0) {
      throw new IllegalArgumentException("felix.log.retention-bytes must be -1 (unlimited) or at least 0, got "
          + retentionBytes);
    }
    if (checkInterval == null || checkInterval.isNegative() || checkInterval.isZero()) {
      throw new IllegalArgumentException("felix.log.retention-check-interval must be a positive duration, got "
          + checkInterval);
    }
  }

  /** As in reference.conf: 7 days, no size limit, checked every 5 s. */
  public static RetentionSettings defaults() {
    return new RetentionSettings(Duration.ofDays(7).toMillis(), UNLIMITED, Duration.ofSeconds(5));
  }

  /** Reads {@code retention-ms}, {@code retention-bytes} and {@code retention-check-interval} of {@code felix.log}. */
  public static RetentionSettings fromConfig(Config log) {
    try {
      return new RetentionSettings(log.getLong("retention-ms"), log.getLong("retention-bytes"),
          log.getDuration("retention-check-interval"));
    } catch (ConfigException e) {
      throw new IllegalArgumentException("felix.log retention settings are not valid: " + e.getMessage(), e);
    }
  }

  /** What applies to a stream: its own settings where it has them, these defaults (and the log's) elsewhere. */
  public Retention resolve(StreamConfig stream, long defaultSegmentBytes) {
    return new Retention(
        stream.retentionMs() != null ? stream.retentionMs() : retentionMs,
        stream.retentionBytes() != null ? stream.retentionBytes() : retentionBytes,
        stream.segmentBytes() != null ? stream.segmentBytes() : defaultSegmentBytes);
  }

  /** The limits in force for one stream; -1: no limit. */
  public record Retention(long retentionMs, long retentionBytes, long segmentBytes) {}
}
