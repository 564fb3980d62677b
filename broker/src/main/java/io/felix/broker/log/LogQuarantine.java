package io.felix.broker.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code <data-dir>/quarantine}: where replica logs go that this broker should not open (the table does not list
 * them, or they belong to another incarnation of their stream) instead of being deleted at once. A table that is
 * wrong, or a bug in deciding what is stale, then costs disk space for a while, not acknowledged records. Each
 * moves to {@code quarantine/<dir>-<epoch-millis>} and is deleted once older than the retention.
 */
public final class LogQuarantine {
  public static final String DIRECTORY = "quarantine";
  private static final Pattern QUARANTINED = Pattern.compile(".+-([0-9]+)");

  private final Path quarantine;
  private final Duration retention;
  private final LongSupplier clockMillis;

  public LogQuarantine(Path dataDir, Duration retention, LongSupplier clockMillis) {
    this.quarantine = dataDir.resolve(DIRECTORY);
    this.retention = retention;
    this.clockMillis = clockMillis;
  }

  /** Moves {@code logDir} into quarantine (durably: both directories are fsynced); returns where it went. */
  public Path quarantine(Path logDir) throws IOException {
    Files.createDirectories(quarantine);
    Path target = quarantine.resolve(logDir.getFileName() + "-" + clockMillis.getAsLong());
    Files.move(logDir, target, StandardCopyOption.ATOMIC_MOVE);
    CheckpointFile.forceDirectory(quarantine);
    CheckpointFile.forceDirectory(logDir.getParent());
    return target;
  }

  /** Deletes the quarantined logs older than the retention; returns the ones deleted. */
  public List<Path> purgeExpired() throws IOException {
    if (!Files.isDirectory(quarantine)) {
      return List.of();
    }
    long now = clockMillis.getAsLong();
    List<Path> expired = new ArrayList<>();
    try (Stream<Path> entries = Files.list(quarantine)) {
      for (Path dir : entries.toList()) {
        Matcher m = QUARANTINED.matcher(dir.getFileName().toString());
        if (m.matches() && now - Long.parseLong(m.group(1)) > retention.toMillis()) {
          expired.add(dir);
        }
      }
    }
    for (Path dir : expired) {
      try (Stream<Path> tree = Files.walk(dir)) {
        for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
    return expired;
  }
}
