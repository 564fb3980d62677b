package io.felix.broker.kafka;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnsafeByteOperations;
import io.felix.client.CacheEntries;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Header;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MemoryRecordsBuilder;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.internals.CloseableIterator;

/**
 * Converts between Kafka's record batches (v2, through kafka-clients' {@link MemoryRecords}) and Felix's stored
 * record lists. Felix stores its own batch format (a RecordList per batch, with the leader's offsets and epoch), so a
 * produce is decoded once and a fetch encoded once; bench's {@code KafkaConversionBenchmark} measures the cost.
 *
 * <p>Mapping: a Kafka record's key, value, headers and timestamp are a Felix record's. Felix cannot tell a null key
 * from an empty one: both are stored empty and read back as null. A null value (a Kafka tombstone) is stored as Felix
 * stores a cache delete, an empty value with the {@value CacheEntries#TOMBSTONE_HEADER} header, and read back as a
 * null value without that header. The producer id, epoch and base sequence of an idempotent batch travel beside the
 * records (see {@link ProduceBatch}). Offsets a fetched answer skips (a leader's epoch markers between batches) are
 * sent as one control batch each, so a Kafka consumer moves past them as past Kafka's own control records.
 */
public final class RecordConversion {
  /** A compacted cache's dropped entry: an empty placeholder record that keeps its offset (see CacheCompaction). */
  private static final Record PLACEHOLDER = Record.getDefaultInstance();

  private RecordConversion() {}

  /** One partition's produce, decoded: the Felix records, the count, and the idempotent producer's stamp. */
  public record ProduceBatch(ByteString records, int count, long producerId, short producerEpoch,
      int baseSequence) {
    boolean idempotent() {
      return producerId >= 0;
    }
  }

  /** A produce's records Felix cannot take; {@link #error} is Kafka's error for it. */
  public static final class RefusedRecords extends Exception {
    final org.apache.kafka.common.protocol.Errors error;

    RefusedRecords(org.apache.kafka.common.protocol.Errors error, String message) {
      super(message, null, false, false);
      this.error = error;
    }
  }

  /**
   * Decodes a produce's records for one partition: exactly one batch of magic v2 (as Kafka requires since produce
   * v3), with a valid CRC, neither transactional nor a control batch, holding at least one record.
   */
  public static ProduceBatch fromKafka(MemoryRecords records) throws RefusedRecords {
    List<Record> out = new ArrayList<>();
    MutableRecordBatch only = null;
    for (MutableRecordBatch batch : records.batches()) {
      if (only != null) {
        throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.INVALID_RECORD,
            "a produce must hold exactly one record batch per partition");
      }
      only = batch;
    }
    if (only == null) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.INVALID_RECORD, "the batch holds no records");
    }
    if (only.magic() != org.apache.kafka.common.record.internal.RecordBatch.MAGIC_VALUE_V2) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.UNSUPPORTED_FOR_MESSAGE_FORMAT,
          "record batch magic " + only.magic() + " is not supported: Felix takes record batch v2 only");
    }
    try {
      only.ensureValid();
    } catch (CorruptRecordException e) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.CORRUPT_MESSAGE, e.getMessage());
    }
    if (only.isTransactional() || only.isControlBatch()) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.INVALID_RECORD,
          "Felix does not support transactions: a transactional or control batch cannot be produced");
    }
    try (CloseableIterator<org.apache.kafka.common.record.internal.Record> it =
             only.streamingIterator(org.apache.kafka.common.utils.internals.BufferSupplier.NO_CACHING)) {
      while (it.hasNext()) {
        out.add(toFelix(it.next()));
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.CORRUPT_MESSAGE, e.getMessage());
    }
    if (out.isEmpty()) {
      throw new RefusedRecords(org.apache.kafka.common.protocol.Errors.INVALID_RECORD, "the batch holds no records");
    }
    return new ProduceBatch(RecordLists.encode(out), out.size(),
        only.hasProducerId() ? only.producerId() : -1, only.producerEpoch(), only.baseSequence());
  }

  private static Record toFelix(org.apache.kafka.common.record.internal.Record r) {
    Record.Builder b = Record.newBuilder().setTimestampMs(r.timestamp());
    if (r.hasKey()) {
      b.setKey(UnsafeByteOperations.unsafeWrap(r.key()));
    }
    if (r.hasValue()) {
      b.setValue(UnsafeByteOperations.unsafeWrap(r.value()));
    }
    for (org.apache.kafka.common.header.Header h : r.headers()) {
      b.addHeaders(Header.newBuilder().setKey(h.key())
          .setValue(h.value() == null ? ByteString.EMPTY : UnsafeByteOperations.unsafeWrap(h.value())));
    }
    if (!r.hasValue()) {
      b.addHeaders(Header.newBuilder().setKey(CacheEntries.TOMBSTONE_HEADER));
    }
    return b.build();
  }

  /**
   * Encodes fetched Felix batches as Kafka record batches v2 (uncompressed), each with its Felix base offset and
   * leader epoch; records before {@code fromOffset} are kept (the consumer skips them, as Kafka's do). An offset
   * between {@code fromOffset} and {@code nextOffset} that no batch covers is a skipped marker and becomes a control
   * batch.
   *
   * @param nextOffset where the next fetch would start (past markers), from the Felix fetch answer
   */
  public static MemoryRecords toKafka(List<RecordBatch> batches, long fromOffset, long nextOffset) {
    List<ByteBuffer> parts = new ArrayList<>(batches.size() + 1);
    int size = 0;
    long expected = fromOffset;
    for (RecordBatch batch : batches) {
      if (batch.getBaseOffset() > expected) {
        ByteBuffer gap = gap(expected, batch.getBaseOffset(), batch.getLeaderEpoch());
        parts.add(gap);
        size += gap.remaining();
      }
      ByteBuffer encoded = encode(batch);
      parts.add(encoded);
      size += encoded.remaining();
      expected = Math.max(expected, batch.getBaseOffset() + batch.getRecordCount());
    }
    if (nextOffset > expected) {
      ByteBuffer gap = gap(expected, nextOffset, batches.isEmpty() ? -1
          : batches.get(batches.size() - 1).getLeaderEpoch());
      parts.add(gap);
      size += gap.remaining();
    }
    if (parts.isEmpty()) {
      return MemoryRecords.EMPTY;
    }
    ByteBuffer all = ByteBuffer.allocate(size);
    parts.forEach(all::put);
    all.flip();
    return MemoryRecords.readableRecords(all);
  }

  private static ByteBuffer encode(RecordBatch batch) {
    List<Record> records = RecordLists.decode(batch.getRecords()).getRecordsList();
    int estimate = 61 + batch.getRecords().size() + records.size() * 16;
    MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(estimate),
        org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE,
        TimestampType.CREATE_TIME, batch.getBaseOffset(), org.apache.kafka.common.record.internal.RecordBatch
            .NO_TIMESTAMP, org.apache.kafka.common.record.internal.RecordBatch.NO_PRODUCER_ID,
        org.apache.kafka.common.record.internal.RecordBatch.NO_PRODUCER_EPOCH,
        org.apache.kafka.common.record.internal.RecordBatch.NO_SEQUENCE, false, (int) batch.getLeaderEpoch());
    long offset = batch.getBaseOffset();
    for (Record r : records) {
      if (!r.equals(PLACEHOLDER)) {
        appendTo(b, offset, r);
      }
      offset++;
    }
    if (b.numRecords() == 0) {
      // Every entry of a compacted batch was dropped: a control batch keeps the consumer moving past it.
      return gap(batch.getBaseOffset(), batch.getBaseOffset() + batch.getRecordCount(), batch.getLeaderEpoch());
    }
    return b.build().buffer();
  }

  private static void appendTo(MemoryRecordsBuilder b, long offset, Record r) {
    boolean tombstone = false;
    List<org.apache.kafka.common.header.Header> headers = new ArrayList<>(r.getHeadersCount());
    for (Header h : r.getHeadersList()) {
      if (h.getKey().equals(CacheEntries.TOMBSTONE_HEADER)) {
        tombstone = true;
      } else {
        headers.add(new RecordHeader(h.getKey(), h.getValue().toByteArray()));
      }
    }
    // Arrays, not read-only views: Kafka's record writer copies a buffer without an array one byte at a time.
    byte[] key = r.getKey().isEmpty() ? null : r.getKey().toByteArray();
    byte[] value = tombstone ? null : r.getValue().toByteArray();
    b.appendWithOffset(offset, r.getTimestampMs(), key, value,
        headers.toArray(new org.apache.kafka.common.header.Header[0]));
  }

  /** Offsets {@code from} (inclusive) to {@code to} (exclusive) that hold no record: one control batch. */
  private static ByteBuffer gap(long from, long to, long leaderEpoch) {
    MemoryRecordsBuilder b = MemoryRecords.builder(ByteBuffer.allocate(128),
        org.apache.kafka.common.record.internal.RecordBatch.CURRENT_MAGIC_VALUE, Compression.NONE,
        TimestampType.CREATE_TIME, from, org.apache.kafka.common.record.internal.RecordBatch.NO_TIMESTAMP,
        org.apache.kafka.common.record.internal.RecordBatch.NO_PRODUCER_ID,
        org.apache.kafka.common.record.internal.RecordBatch.NO_PRODUCER_EPOCH,
        org.apache.kafka.common.record.internal.RecordBatch.NO_SEQUENCE, false, true, (int) leaderEpoch);
    b.appendControlRecordWithOffset(to - 1, new SimpleRecord(0L, ControlRecordType.LEADER_CHANGE.recordKey(),
        ByteBuffer.allocate(0)));
    return b.build().buffer();
  }
}
