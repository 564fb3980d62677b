package io.felix.protocol;

/** A frame's body is not a valid protobuf message of the expected type (or breaks the parse limits). */
public final class MalformedFrameException extends FrameException {
  public MalformedFrameException(String message, Throwable cause) {
    super(message, cause);
  }
}
