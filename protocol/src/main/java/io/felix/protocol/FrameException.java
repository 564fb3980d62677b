package io.felix.protocol;

import java.io.IOException;

/** A frame on a Felix connection could not be accepted. The connection it came from should be closed. */
public abstract class FrameException extends IOException {
  protected FrameException(String message, Throwable cause) {
    super(message, cause);
  }
}
