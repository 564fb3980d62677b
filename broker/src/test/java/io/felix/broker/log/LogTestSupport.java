package io.felix.broker.log;

import java.nio.ByteBuffer;

/** Payloads and settings shared by the log tests. */
final class LogTestSupport {
  /** 100-byte payloads make 164-byte batches. */
  static final int PAYLOAD = 100;
  static final int BATCH = LogBatch.HEADER_BYTES + PAYLOAD;

  private LogTestSupport() {}

  /**
   * Six 164-byte batches per segment (a seventh would pass 1000 bytes); an index entry every 400 bytes; every batch
   * verified on open (the tests of {@code unflushed} say so).
   */
  static LogSettings smallSegments() {
    return oneBigSegment().withSegmentBytes(1000).withIndexIntervalBytes(400);
  }

  /** The default segment size; every batch verified on open. */
  static LogSettings oneBigSegment() {
    return LogSettings.defaults().withVerifyOnOpen(LogSettings.VerifyOnOpen.ALL);
  }

  /** A payload whose bytes identify the batch: byte i is (seed * 31 + i). */
  static ByteBuffer payload(int seed, int size) {
    byte[] bytes = new byte[size];
    for (int i = 0; i < size; i++) {
      bytes[i] = (byte) (seed * 31 + i);
    }
    return ByteBuffer.wrap(bytes);
  }

  static ByteBuffer payload(int seed) {
    return payload(seed, PAYLOAD);
  }

  static byte[] bytes(ByteBuffer buf) {
    byte[] out = new byte[buf.remaining()];
    buf.duplicate().get(out);
    return out;
  }
}
