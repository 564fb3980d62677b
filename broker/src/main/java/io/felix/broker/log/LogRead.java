package io.felix.broker.log;

import java.nio.ByteBuffer;

/**
 * Whole encoded batches read from a log, and the offset to read from next. The first batch may start before the
 * requested offset (it is the batch that contains it): a consumer skips the records before the offset it asked for.
 * {@code batches} is empty when nothing was readable; then {@code nextOffset} is the requested offset.
 */
public record LogRead(ByteBuffer batches, long nextOffset) {

  public boolean isEmpty() {
    return !batches.hasRemaining();
  }

  /** Iterates the batches read. */
  public BatchDecoder decoder() {
    return new BatchDecoder(batches);
  }
}
