package io.felix.loadgen;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The value of every record the load generator writes, so that {@code consume --verify} can attribute and
 * check it:
 *
 * <pre>
 *  0  int32  magic 0x464C5831 ("FLX1")
 *  4  int64  run id (random per produce run)
 * 12  int32  producer (0..producers-1)
 * 16  int64  sequence number, from 0 per producer
 * 24  int32  CRC32C over every other byte of the value (0..23 and 28..end)
 * 28  ...    padding up to the record size, a pattern derived from the sequence number
 * </pre>
 *
 * All big-endian. A record belongs to producer (run id, producer).
 */
public final class RecordFormat {
  static final int MAGIC = 0x464C5831;
  public static final int HEADER_BYTES = 28;
  private static final int CRC_AT = 24;

  /**
   * What a value says, or why it cannot be used ({@code problem} non-null): {@code foreign} when it is not a
   * load generator record at all (too short or no magic), else corrupt (checksum mismatch).
   */
  public record Decoded(long runId, int producer, long sequence, String problem, boolean foreign) {
    boolean corrupt() {
      return problem != null && !foreign;
    }
  }

  private RecordFormat() {}

  static byte[] encode(long runId, int producer, long sequence, int size) {
    if (size < HEADER_BYTES) {
      throw new IllegalArgumentException("record size must be at least " + HEADER_BYTES + " bytes, got " + size);
    }
    byte[] value = new byte[size];
    ByteBuffer b = ByteBuffer.wrap(value);
    b.putInt(MAGIC).putLong(runId).putInt(producer).putLong(sequence);
    for (int i = HEADER_BYTES; i < size; i++) {
      value[i] = (byte) (sequence * 31 + i);
    }
    b.putInt(CRC_AT, crc(value));
    return value;
  }

  /** The load generator's fields of a record value, or why it is not one of its records. */
  public static Decoded decode(byte[] value) {
    if (value.length < HEADER_BYTES) {
      return new Decoded(0, -1, -1, "value of " + value.length + " bytes is shorter than the 28-byte header", true);
    }
    ByteBuffer b = ByteBuffer.wrap(value);
    if (b.getInt(0) != MAGIC) {
      return new Decoded(0, -1, -1, String.format("bad magic 0x%08X", b.getInt(0)), true);
    }
    long runId = b.getLong(4);
    int producer = b.getInt(12);
    long sequence = b.getLong(16);
    int stored = b.getInt(CRC_AT);
    int actual = crc(value);
    if (stored != actual) {
      return new Decoded(runId, producer, sequence,
          String.format("checksum mismatch: stored 0x%08X, computed 0x%08X", stored, actual), false);
    }
    return new Decoded(runId, producer, sequence, null, false);
  }

  private static int crc(byte[] value) {
    CRC32C crc = new CRC32C();
    crc.update(value, 0, CRC_AT);
    crc.update(value, HEADER_BYTES, value.length - HEADER_BYTES);
    return (int) crc.getValue();
  }
}
