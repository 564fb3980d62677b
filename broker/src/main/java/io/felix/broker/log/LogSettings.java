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
 * @param flushThreads threads of the broker's {@link FlushScheduler}, whose fsyncs of different logs overlap
 * @param verifyOnOpen which segments a log verifies batch by batch when it opens
 * @param reopenInterval how often a replica whose log failed (could not be opened, or a write or fsync failed)
 *     tries to open it again
 * @param idleFileClose a log nobody appended to or read from for this long closes its files (and opens them again
 *     on its next use); zero = never
 */
public record LogSettings(
    long segmentBytes, int indexIntervalBytes, Flush flush, Duration flushInterval, int flushThreads,
    VerifyOnOpen verifyOnOpen, Duration reopenInterval, Duration idleFileClose) {
  /** Positions in a segment are 32-bit. */
  public static final long MAX_SEGMENT_BYTES = Integer.MAX_VALUE;
  public static final long DEFAULT_SEGMENT_BYTES = 128L * 1024 * 1024;
  public static final Duration DEFAULT_IDLE_FILE_CLOSE = Duration.ofSeconds(60);

  public enum Flush {
    /** A batch counts as stored only once fsynced; fsyncs are shared across logs (group commit). */
    ALWAYS,
    /** Fsync every {@code flush-interval}; a crash can lose the last interval of acknowledged batches. */
    INTERVAL
  }

  public enum VerifyOnOpen {
    /** Every batch of every segment: damage anywhere is found before the log serves (open reads the whole log). */
    ALL,
    /**
     * Only segments at or after the recovery point (what a crash can have torn); sealed segments below it are
     * trusted, their indexes loaded from their index files. Opens in time independent of the log's size, but damage
     * in sealed segments goes unnoticed until a consumer's CRC check.
     */
    UNFLUSHED
  }

  public LogSettings {
    require(segmentBytes >= LogBatch.HEADER_BYTES + 1 && segmentBytes <= MAX_SEGMENT_BYTES, "segment-bytes",
        "must be between " + (LogBatch.HEADER_BYTES + 1) + " and " + MAX_SEGMENT_BYTES + " bytes, got " + segmentBytes);
    require(indexIntervalBytes >= 1, "index-interval-bytes", "must be >= 1 byte, got " + indexIntervalBytes);
    require(flush != null, "flush", "must be set");
    require(flushInterval != null && !flushInterval.isNegative() && !flushInterval.isZero(), "flush-interval",
        "must be a positive duration, got " + flushInterval);
    require(flushThreads >= 1 && flushThreads <= 64, "flush-threads", "must be between 1 and 64, got " + flushThreads);
    require(verifyOnOpen != null, "verify-on-open", "must be set");
    require(reopenInterval != null && !reopenInterval.isNegative() && !reopenInterval.isZero(), "reopen-interval",
        "must be a positive duration, got " + reopenInterval);
    require(idleFileClose != null && !idleFileClose.isNegative(), "idle-file-close",
        "must be a duration >= 0 (0 = never), got " + idleFileClose);
  }

  /**
   * The defaults, as in reference.conf: 128 MiB segments, an index entry every 4 KiB, flush always with 4 threads,
   * verify every batch on open, a failed log reopened every 5 s, files closed after 60 s idle.
   */
  public static LogSettings defaults() {
    return new LogSettings(DEFAULT_SEGMENT_BYTES, 4096, Flush.ALWAYS, Duration.ofMillis(100), 4,
        VerifyOnOpen.ALL, Duration.ofSeconds(5), DEFAULT_IDLE_FILE_CLOSE);
  }

  public LogSettings withSegmentBytes(long bytes) {
    return new LogSettings(bytes, indexIntervalBytes, flush, flushInterval, flushThreads, verifyOnOpen, reopenInterval,
        idleFileClose);
  }

  public LogSettings withIndexIntervalBytes(int bytes) {
    return new LogSettings(segmentBytes, bytes, flush, flushInterval, flushThreads, verifyOnOpen, reopenInterval,
        idleFileClose);
  }

  public LogSettings withFlush(Flush mode, Duration interval) {
    return new LogSettings(segmentBytes, indexIntervalBytes, mode, interval, flushThreads, verifyOnOpen,
        reopenInterval, idleFileClose);
  }

  public LogSettings withVerifyOnOpen(VerifyOnOpen verify) {
    return new LogSettings(segmentBytes, indexIntervalBytes, flush, flushInterval, flushThreads, verify,
        reopenInterval, idleFileClose);
  }

  public LogSettings withFlushThreads(int threads) {
    return new LogSettings(segmentBytes, indexIntervalBytes, flush, flushInterval, threads, verifyOnOpen,
        reopenInterval, idleFileClose);
  }

  public LogSettings withReopenInterval(Duration interval) {
    return new LogSettings(segmentBytes, indexIntervalBytes, flush, flushInterval, flushThreads, verifyOnOpen,
        interval, idleFileClose);
  }

  public LogSettings withIdleFileClose(Duration idle) {
    return new LogSettings(segmentBytes, indexIntervalBytes, flush, flushInterval, flushThreads, verifyOnOpen,
        reopenInterval, idle);
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
    int threads = read(log, "flush-threads", () -> log.getInt("flush-threads"));
    String verifyName = read(log, "verify-on-open", () -> log.getString("verify-on-open"));
    VerifyOnOpen verify;
    try {
      verify = VerifyOnOpen.valueOf(verifyName.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw invalid("verify-on-open", "must be all or unflushed, got '" + verifyName + "'");
    }
    Duration reopen = read(log, "reopen-interval", () -> log.getDuration("reopen-interval"));
    Duration idle = read(log, "idle-file-close", () -> log.getDuration("idle-file-close"));
    return new LogSettings(segmentBytes, (int) indexInterval, flush, interval, threads, verify, reopen, idle);
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
