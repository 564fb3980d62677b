package io.felix.broker.control;

import io.felix.broker.wire.ControlMessage;

/** Producer ids {@code [firstId, firstId + count)}, allocated by the placement singleton to one broker. */
public record ProducerIdBlock(long firstId, int count) implements ControlMessage {
  /** Ids per block: a broker asks the singleton once per this many idempotent producers. */
  public static final int SIZE = 1000;

  public long endId() {
    return firstId + count;
  }
}
