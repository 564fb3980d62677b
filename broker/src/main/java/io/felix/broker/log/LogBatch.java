package io.felix.broker.log;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * One framed batch of the log: a fixed 64-byte header followed by an opaque payload (the client protocol's
 * encoded RecordList, which the log never decodes). The same bytes are stored in segment files, sent to
 * followers and served to consumers, so a batch is framed once by the leader and never re-encoded.
 *
 * <pre>
 * offset size field
 *   0     8   baseOffset       offset of the first record (assigned by the leader's log)
 *   8     4   payloadLength    bytes of payload after the header (>= 0)
 *  12     4   recordCount      records in the payload (>= 1); the batch covers [baseOffset, baseOffset + recordCount)
 *  16     8   leaderEpoch      epoch of the leader that appended the batch (>= 0)
 *  24     8   firstTimestamp   timestamp of the first record (ms since the epoch, as the producer gave it)
 *  32     8   maxTimestamp     largest timestamp in the batch
 *  40     1   magic            format version, {@value #MAGIC}
 *  41     3   reserved         zero
 *  44     8   producerId       idempotent producer's id, -1 when none ({@link ProducerStamp})
 *  52     4   producerEpoch    that producer's epoch, -1 when none
 *  56     4   baseSequence     sequence number of the first record for that producer in this shard, -1 when none
 *  60     4   crc              CRC32C over bytes [0, 60) and the payload
 *  64     n   payload
 * </pre>
 *
 * <p>Magic 2 added the producer fields (magic 1 had a 48-byte header with the CRC at 44); logs written with magic 1
 * are not read.
 *
 * All integers are big-endian. The CRC covers the offset and length fields too: a flipped bit anywhere in a batch
 * is caught, at the cost that offsets cannot be rewritten in place (Felix never does).
 *
 * @param position where the batch starts in the buffer it was decoded from (its segment or a byte range)
 * @param payload a read-only slice of the payload, sharing the buffer it was decoded from
 */
public record LogBatch(
    long baseOffset, int recordCount, long leaderEpoch, long firstTimestamp, long maxTimestamp,
    ProducerStamp producer, int crc, int position, ByteBuffer payload) {

  public static final int HEADER_BYTES = 64;
  public static final byte MAGIC = 2;
  static final int LENGTH_AT = 8;
  static final int COUNT_AT = 12;
  static final int EPOCH_AT = 16;
  static final int FIRST_TS_AT = 24;
  static final int MAX_TS_AT = 32;
  static final int MAGIC_AT = 40;
  static final int PRODUCER_ID_AT = 44;
  static final int PRODUCER_EPOCH_AT = 52;
  static final int BASE_SEQUENCE_AT = 56;
  static final int CRC_AT = 60;

  /** The offset after the last record of this batch. */
  public long nextOffset() {
    return baseOffset + recordCount;
  }

  public int payloadLength() {
    return payload.remaining();
  }

  /** Header plus payload, as stored. */
  public int sizeInBytes() {
    return HEADER_BYTES + payload.remaining();
  }

  /**
   * Frames a payload into a batch header; the payload is not copied. Returns the header, to be written followed
   * by the payload.
   */
  static ByteBuffer encodeHeader(
      long baseOffset, int recordCount, long leaderEpoch, long firstTimestamp, long maxTimestamp,
      ProducerStamp producer, ByteBuffer payload) {
    ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.BIG_ENDIAN);
    header.putLong(0, baseOffset)
        .putInt(LENGTH_AT, payload.remaining())
        .putInt(COUNT_AT, recordCount)
        .putLong(EPOCH_AT, leaderEpoch)
        .putLong(FIRST_TS_AT, firstTimestamp)
        .putLong(MAX_TS_AT, maxTimestamp)
        .put(MAGIC_AT, MAGIC)
        .putLong(PRODUCER_ID_AT, producer.producerId())
        .putInt(PRODUCER_EPOCH_AT, producer.producerEpoch())
        .putInt(BASE_SEQUENCE_AT, producer.baseSequence());
    header.putInt(CRC_AT, crcOf(header, 0, payload.duplicate()));
    return header;
  }

  /** Encodes a whole batch into a new buffer (header and a copy of the payload); for tests and tools. */
  public static ByteBuffer encode(
      long baseOffset, int recordCount, long leaderEpoch, long firstTimestamp, long maxTimestamp,
      ByteBuffer payload) {
    return encode(baseOffset, recordCount, leaderEpoch, firstTimestamp, maxTimestamp, ProducerStamp.NONE, payload);
  }

  /** As {@link #encode(long, int, long, long, long, ByteBuffer)}, for a batch of an idempotent producer. */
  public static ByteBuffer encode(
      long baseOffset, int recordCount, long leaderEpoch, long firstTimestamp, long maxTimestamp,
      ProducerStamp producer, ByteBuffer payload) {
    ByteBuffer header = encodeHeader(baseOffset, recordCount, leaderEpoch, firstTimestamp, maxTimestamp, producer,
        payload);
    ByteBuffer whole = ByteBuffer.allocate(HEADER_BYTES + payload.remaining());
    whole.put(header).put(payload.duplicate()).flip();
    return whole;
  }

  /** CRC32C of the header at {@code headerAt} in {@code buf} (without its CRC field) and the given payload. */
  static int crcOf(ByteBuffer buf, int headerAt, ByteBuffer payload) {
    CRC32C crc = new CRC32C();
    crc.update(buf.duplicate().limit(headerAt + CRC_AT).position(headerAt));
    crc.update(payload);
    return (int) crc.getValue();
  }

  /**
   * Why the bytes at a position do not form a valid batch, or null if they do. A short buffer (a torn write) is
   * reported as {@link Damage#INCOMPLETE}; any other problem as {@link Damage#INVALID}.
   */
  static Damage check(ByteBuffer buf, int at, long maxPayload) {
    int available = buf.limit() - at;
    if (available < HEADER_BYTES) {
      return Damage.INCOMPLETE;
    }
    int length = buf.getInt(at + LENGTH_AT);
    if (length < 0 || length > maxPayload || buf.get(at + MAGIC_AT) != MAGIC
        || buf.getInt(at + COUNT_AT) < 1 || buf.getLong(at + EPOCH_AT) < 0 || buf.getLong(at) < 0) {
      return Damage.INVALID;
    }
    if (available - HEADER_BYTES < length) {
      return Damage.INCOMPLETE;
    }
    ByteBuffer payload = buf.duplicate().limit(at + HEADER_BYTES + length).position(at + HEADER_BYTES);
    return crcOf(buf, at, payload) == buf.getInt(at + CRC_AT) ? null : Damage.INVALID;
  }

  enum Damage { INCOMPLETE, INVALID }

  /** Reads the batch at {@code at} without checking it; {@link #check} first when the bytes are not trusted. */
  static LogBatch decodeAt(ByteBuffer buf, int at) {
    int length = buf.getInt(at + LENGTH_AT);
    ByteBuffer payload = buf.duplicate().limit(at + HEADER_BYTES + length).position(at + HEADER_BYTES).slice()
        .asReadOnlyBuffer();
    return new LogBatch(buf.getLong(at), buf.getInt(at + COUNT_AT), buf.getLong(at + EPOCH_AT),
        buf.getLong(at + FIRST_TS_AT), buf.getLong(at + MAX_TS_AT), producerAt(buf, at), buf.getInt(at + CRC_AT),
        at, payload);
  }

  private static ProducerStamp producerAt(ByteBuffer buf, int at) {
    long id = buf.getLong(at + PRODUCER_ID_AT);
    return id == ProducerStamp.NO_PRODUCER_ID ? ProducerStamp.NONE
        : new ProducerStamp(id, buf.getInt(at + PRODUCER_EPOCH_AT), buf.getInt(at + BASE_SEQUENCE_AT));
  }
}
