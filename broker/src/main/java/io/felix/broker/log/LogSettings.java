package io.felix.broker.log;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.time.Duration;
import java.util.Locale;

/**
 * Settings of the shard logs, from the {@code felix.log} config subtree (see reference.conf for what each means).
 *
 * @param segmentBytes a segment rolls when the next batch would take it past this size
 * @param indexIntervalBytes bytes of log between two entries of the sparse offset index
 * @param flush when appended batches are fsynced
 * @param flushInterval with {@link Flush#INTERVAL}, the time between two fsync rounds
 */
public record LogSettings(long segmentBytes, int indexIntervalBytes, Flush flush, Duration flushInterval) {
  /** Positions in a segment are 32-bit. */
  public static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;
  public static final long DEFAULT_SEGMENT_BYTES = 128L * 1024 * 1024;

  public enum Flush {
    /** A batch counts as stored only once fsynced; fsyncs are shared across logs (group commit). */
    ALWAYS,
    /** Fsync every {@code flush-interval}; a crash can lose the last interval of acknowledged batches. */
    INTERVAL
  }

  public LogSettings {
    require(segmentBytes >= LogBatch.HEADER_BYTES + 1 && segmentBytes <= MAX_SEGMENT_BYTES, "segment-bytes",
        "must be between " + (LogBatch.HEADER_BYTES + 1) + " and " + MAX_SEGMENT_BYTES + " bytes, got " + segmentBytes);
    require(indexIntervalBytes >= 1, "index-interval-bytes", "must be >= 1 byte, got " + indexIntervalBytes);
    require(flush != null, "flush", "must be set");
    require(flushInterval != null && !flushInterval.isNegative() && !flushInterval.isZero(), "flush-interval",
        "must be a positive duration, got " + flushInterval);
  }

  /** The defaults: 128 MiB segments, an index entry every 4 KiB, flush always. */
  public static LogSettings defaults() {
    return new LogSettings(DEFAULT_SEGMENT_BYTES, 4096, Flush.ALWAYS, Duration.ofMillis(100));
  }

  /** Reads the {@code felix.log} subtree (pass {@code config.getConfig("felix.log")}). */
  public static LogSettings fromConfig(Config log) {
    long segmentBytes = read(log, "segment-bytes", () -> log.getBytes("segment-bytes"));
    long indexInterval = read(log, "index-interval-bytes", () -> log.getBytes("index-interval-bytes"));
    require(indexInterval <= Integer.MAX_VALUE, "index-interval-bytes", "must be < 2 GiB, got " + indexInterval);
    String flushName = read(log, "flush", () -> log.getString("flush"));
    Flush flush;
    try {
      flush = Flush.valueOf(flushName.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid("flush", "must be always or interval, got '" + flushName + "'");
    }
    Duration interval = read(log, "flush-interval", () -> log.getDuration("flush-interval"));
    return new LogSettings(segmentBytes, (int) indexInterval, flush, interval);
  }

  private interface Getter<T> {
    T get();
  }

  private static <T> T read(Config log, String key, Getter<T> getter) {
    try {
      return getter.get();
    } catch (ConfigException.Missing e) {
      throw invalid(key, "is missing");
    } catch (ConfigException e) {
      throw invalid(key, "is not valid: " + e.getMessage());
    }
  }

  private static void require(boolean ok, String key, String problem) {
    if (!ok) {
      throw invalid(key, problem);
    }
  }

  private static IllegalArgumentException invalid(String key, String problem) {
    return new IllegalArgumentException("felix.log." + key + " " + problem);
  }
}
