package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;

/**
 * A fetch's offset is outside the shard's log: below its start (retention deleted those records) or beyond its end.
 * Carries where the log starts and what is committed on the answering replica, so the caller can reset.
 */
public final class OffsetOutOfRangeException extends FelixException {
  private final long logStartOffset;
  private final long commitOffset;

  OffsetOutOfRangeException(String message, long logStartOffset, long commitOffset) {
    super(Kind.BROKER_ERROR, ErrorCode.OFFSET_OUT_OF_RANGE, message, false, true);
    this.logStartOffset = logStartOffset;
    this.commitOffset = commitOffset;
  }

  static OffsetOutOfRangeException of(Error error) {
    return new OffsetOutOfRangeException(Errors.format(error), error.getLogStartOffset(), error.getCommitOffset());
  }

  /** The first offset the shard's log holds. */
  public long logStartOffset() {
    return logStartOffset;
  }

  /** The shard's commit offset: the next offset to be committed. */
  public long commitOffset() {
    return commitOffset;
  }

  @Override
  public OffsetOutOfRangeException withContext(String context) {
    return new OffsetOutOfRangeException(context + ": " + getMessage(), logStartOffset, commitOffset);
  }
}
