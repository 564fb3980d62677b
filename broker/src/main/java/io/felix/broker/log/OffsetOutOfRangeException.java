package io.felix.broker.log;

/** A read or truncation at an offset the log does not hold (below its start or beyond its end). */
public final class OffsetOutOfRangeException extends IllegalArgumentException {
  private final long logStartOffset;
  private final long logEndOffset;

  public OffsetOutOfRangeException(long offset, long logStartOffset, long logEndOffset) {
    super("offset " + offset + " is outside the log [" + logStartOffset + ", " + logEndOffset + "]");
    this.logStartOffset = logStartOffset;
    this.logEndOffset = logEndOffset;
  }

  public long logStartOffset() {
    return logStartOffset;
  }

  public long logEndOffset() {
    return logEndOffset;
  }
}
