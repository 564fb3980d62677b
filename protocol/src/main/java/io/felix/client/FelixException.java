package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;

/**
 * Why a client request failed. {@link #code()} is the broker's error code for a broker error and NONE for a
 * failure seen by the client itself ({@link #kind()} says which).
 *
 * <p>{@link #notAppended()} is the client's knowledge about a failed produce: true only when the batch
 * certainly was not stored (it never left the client, or the broker said so); false means it may or may not
 * have been stored and may still become visible to consumers.
 */
public class FelixException extends RuntimeException {
  /** What went wrong. */
  public enum Kind {
    BROKER_ERROR,
    CONNECTION_FAILED,
    REQUEST_TIMEOUT,
    NO_LEADER,
    CLIENT_CLOSED,
    /** Something unexpected failed inside the client; not retried, outcome unknown. */
    CLIENT_ERROR
  }

  private final Kind kind;
  private final ErrorCode code;
  private final boolean retriable;
  private final boolean notAppended;

  public FelixException(Kind kind, ErrorCode code, String message, boolean retriable, boolean notAppended) {
    super(message);
    this.kind = kind;
    this.code = code;
    this.retriable = retriable;
    this.notAppended = notAppended;
  }

  public static FelixException broker(Error error) {
    if (error.getCode() == ErrorCode.OFFSET_OUT_OF_RANGE) {
      return OffsetOutOfRangeException.of(error);
    }
    return new FelixException(
        Kind.BROKER_ERROR,
        error.getCode(),
        Errors.format(error),
        Errors.isRetriable(error.getCode()),
        Errors.definitelyNotAppended(error));
  }

  public static FelixException connectionFailed(String message, boolean written) {
    return new FelixException(Kind.CONNECTION_FAILED, ErrorCode.NONE, message, true, !written);
  }

  public static FelixException requestTimeout(String message, boolean written) {
    return new FelixException(Kind.REQUEST_TIMEOUT, ErrorCode.NONE, message, true, !written);
  }

  public static FelixException noLeader(String message) {
    return new FelixException(Kind.NO_LEADER, ErrorCode.NONE, message, true, true);
  }

  public static FelixException clientClosed(String message) {
    return new FelixException(Kind.CLIENT_CLOSED, ErrorCode.NONE, message, false, true);
  }

  /** Unwraps CompletionException layers to the FelixException, or wraps anything else as a CLIENT_ERROR. */
  public static FelixException from(Throwable t) {
    Throwable cause = t;
    while ((cause instanceof java.util.concurrent.CompletionException
            || cause instanceof java.util.concurrent.ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof FelixException fe) {
      return fe;
    }
    return new FelixException(Kind.CLIENT_ERROR, ErrorCode.NONE, String.valueOf(cause), false, false);
  }

  public Kind kind() {
    return kind;
  }

  public ErrorCode code() {
    return code;
  }

  public boolean retriable() {
    return retriable;
  }

  public boolean notAppended() {
    return notAppended;
  }

  /** The same failure with more context in front of its message. */
  public FelixException withContext(String context) {
    return new FelixException(kind, code, context + ": " + getMessage(), retriable, notAppended);
  }
}
