package io.felix.broker.log;

import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The name of a segment: its base offset (the offset of its first batch), zero-padded to 20 digits so that file
 * names sort like offsets, e.g. {@code 00000000000000000000.log} and, once sealed, {@code 00000000000000000000.index}.
 */
public record SegmentName(long baseOffset) implements Comparable<SegmentName> {
  public static final String LOG_SUFFIX = ".log";
  public static final String INDEX_SUFFIX = ".index";
  private static final Pattern LOG_FILE = Pattern.compile("(\\d{20})\\.log");

  public SegmentName {
    if (baseOffset < 0) {
      throw new IllegalArgumentException("segment base offset must be >= 0, got " + baseOffset);
    }
  }

  /** The segment named by a file name, or empty if the name is not a segment file's. */
  public static Optional<SegmentName> parse(String fileName) {
    Matcher m = LOG_FILE.matcher(fileName);
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new SegmentName(Long.parseLong(m.group(1))));
    } catch (NumberFormatException e) {
      return Optional.empty(); // 20 digits beyond Long.MAX_VALUE
    }
  }

  public String logFileName() {
    return zeroPadded(LOG_SUFFIX);
  }

  public Path logFile(Path dir) {
    return dir.resolve(logFileName());
  }

  /** The sparse offset index of a sealed segment, e.g. {@code 00000000000000000000.index}. */
  public String indexFileName() {
    return zeroPadded(INDEX_SUFFIX);
  }

  /** The base offset in 20 digits, then {@code suffix}; not String.format, which was 6% of a large creation's CPU. */
  private String zeroPadded(String suffix) {
    String digits = Long.toString(baseOffset);
    return "0".repeat(20 - digits.length()) + digits + suffix;
  }

  public Path indexFile(Path dir) {
    return dir.resolve(indexFileName());
  }

  @Override
  public int compareTo(SegmentName other) {
    return Long.compare(baseOffset, other.baseOffset);
  }

  @Override
  public String toString() {
    return logFileName();
  }
}
