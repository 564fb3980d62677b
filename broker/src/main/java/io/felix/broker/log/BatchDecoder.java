package io.felix.broker.log;

import java.nio.ByteBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Iterates the batches of an encoded byte range (a {@link LogRead}, a replication message), checking each
 * header and CRC before handing it out. Not thread-safe; the buffer is not modified (its position is ignored
 * after construction) and the payload slices share it.
 *
 * <p>A damaged or incomplete batch raises {@link InvalidBatchException} naming its position: the range came
 * from a trusted log or over a checked connection, so damage is a broken invariant, not an end marker.
 */
public final class BatchDecoder implements Iterator<LogBatch> {
  private final ByteBuffer buf;
  private int at;

  public BatchDecoder(ByteBuffer batches) {
    this.buf = batches.slice();
    this.at = 0;
  }

  @Override
  public boolean hasNext() {
    return at < buf.limit();
  }

  @Override
  public LogBatch next() {
    if (!hasNext()) {
      throw new NoSuchElementException("no batch left in the range");
    }
    LogBatch.Damage damage = LogBatch.check(buf, at, Integer.MAX_VALUE);
    if (damage != null) {
      throw new InvalidBatchException("batch at byte " + at + " of a " + buf.limit() + "-byte range is "
          + (damage == LogBatch.Damage.INCOMPLETE ? "incomplete" : "corrupt (bad header or CRC)"));
    }
    LogBatch batch = LogBatch.decodeAt(buf, at);
    at += batch.sizeInBytes();
    return batch;
  }
}
