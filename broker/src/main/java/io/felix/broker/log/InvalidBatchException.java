package io.felix.broker.log;

/** Bytes offered to the log (or to a {@link BatchDecoder}) that are not a valid continuation of it; nothing was written. */
public final class InvalidBatchException extends IllegalArgumentException {
  public InvalidBatchException(String message) {
    super(message);
  }
}
