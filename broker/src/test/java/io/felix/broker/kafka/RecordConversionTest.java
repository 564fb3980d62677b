package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.client.RecordBatch;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

class RecordConversionTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aProducedBatchReadsBackWithKeysValuesHeadersTombstonesAndTheProducerStamp() throws Exception {
    MemoryRecords produced = MemoryRecords.withIdempotentRecords(Compression.gzip().build(), 42L, (short) 3, 7,
        new SimpleRecord(1000L, bytes("k1"), bytes("v1"), new Header[] {new RecordHeader("h", bytes("x"))}),
        new SimpleRecord(1001L, null, bytes("v2")),
        new SimpleRecord(1002L, bytes("k3"), null));
    RecordConversion.ProduceBatch batch = RecordConversion.fromKafka(produced);
    assertEquals(3, batch.count());
    assertEquals(42L, batch.producerId());
    assertEquals(3, batch.producerEpoch());
    assertEquals(7, batch.baseSequence());

    RecordBatch stored = RecordBatch.newBuilder().setBaseOffset(100).setRecordCount(3).setLeaderEpoch(5)
        .setRecords(batch.records()).build();
    MemoryRecords fetched = RecordConversion.toKafka(List.of(stored), 100, 103);
    List<Record> records = new ArrayList<>();
    for (MutableRecordBatch b : fetched.batches()) {
      b.ensureValid();
      assertEquals(5, b.partitionLeaderEpoch());
      assertFalse(b.isControlBatch());
      b.forEach(records::add);
    }
    assertEquals(List.of(100L, 101L, 102L), records.stream().map(Record::offset).toList());
    assertEquals(1000L, records.get(0).timestamp());
    assertArrayEquals(bytes("x"), records.get(0).headers()[0].value());
    assertNull(records.get(1).key(), "no key");
    assertNull(records.get(2).value(), "a tombstone stays a null value");
    assertEquals(0, records.get(2).headers().length, "the tombstone header is Felix's, not shown to Kafka");
  }

  @Test
  void offsetsNoRecordHoldsBecomeControlBatchesAConsumerSkips() throws Exception {
    RecordConversion.ProduceBatch one = RecordConversion.fromKafka(MemoryRecords.withRecords(Compression.NONE,
        new SimpleRecord(5L, bytes("k"), bytes("v"))));
    RecordBatch at11 = RecordBatch.newBuilder().setBaseOffset(11).setRecordCount(1).setLeaderEpoch(2)
        .setRecords(one.records()).build();
    MemoryRecords fetched = RecordConversion.toKafka(List.of(at11), 10, 13); // a marker at 10, another at 12
    List<long[]> batches = new ArrayList<>();
    for (MutableRecordBatch b : fetched.batches()) {
      batches.add(new long[] {b.baseOffset(), b.lastOffset(), b.isControlBatch() ? 1 : 0});
    }
    assertEquals(3, batches.size());
    assertArrayEquals(new long[] {10, 10, 1}, batches.get(0));
    assertArrayEquals(new long[] {11, 11, 0}, batches.get(1));
    assertArrayEquals(new long[] {12, 12, 1}, batches.get(2));
  }

  @Test
  void batchesFelixCannotTakeAreRefusedWithKafkasError() {
    RecordConversion.RefusedRecords transactional = assertThrows(RecordConversion.RefusedRecords.class,
        () -> RecordConversion.fromKafka(MemoryRecords.withTransactionalRecords(Compression.NONE, 1L, (short) 0, 0,
            new SimpleRecord(bytes("v")))));
    assertEquals(Errors.INVALID_RECORD, transactional.error);
    ByteBuffer corrupt = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(bytes("v"))).buffer();
    corrupt.put(corrupt.limit() - 1, (byte) (corrupt.get(corrupt.limit() - 1) ^ 1));
    RecordConversion.RefusedRecords crc = assertThrows(RecordConversion.RefusedRecords.class,
        () -> RecordConversion.fromKafka(MemoryRecords.readableRecords(corrupt)));
    assertEquals(Errors.CORRUPT_MESSAGE, crc.error);
    assertTrue(assertThrows(RecordConversion.RefusedRecords.class,
        () -> RecordConversion.fromKafka(MemoryRecords.EMPTY)).getMessage().contains("no records"));
  }
}
