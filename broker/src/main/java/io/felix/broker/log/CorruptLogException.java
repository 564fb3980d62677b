package io.felix.broker.log;

import java.io.IOException;

/**
 * A log whose durable part is damaged (a bad batch before the recovery point, in an older segment or followed by
 * data known to be flushed). The log refuses to open so the replica is marked failed instead of serving bad data.
 */
public final class CorruptLogException extends IOException {
  public CorruptLogException(String message) {
    super(message);
  }
}
