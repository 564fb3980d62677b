package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;

class KafkaCodecTest {

  /** A Kafka batch inside a larger read, as the frame decoder slices a request out of what the socket gave. */
  private static ByteString sliceOfARead(ByteBuffer batch) {
    byte[] read = new byte[batch.remaining() + 7];
    read[0] = 9;
    read[read.length - 1] = 9;
    batch.duplicate().get(read, 3, batch.remaining());
    return ByteString.fromArrayUnsafe(read).slice(3, read.length - 4);
  }

  @Test
  void aRequestIsReadFromAnArrayWithTheFramesBytesOnly() throws Exception {
    ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
        new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))).buffer();
    ByteString frame = sliceOfARead(batch);
    assertTrue(frame.asByteBuffer().isReadOnly(), "Pekko's own view, on which kafka-clients' CRC is byte by byte");

    ByteBuffer buffer = KafkaCodec.requestBuffer(frame);
    assertTrue(buffer.hasArray(), "kafka-clients checks the CRC with the intrinsic only over an array");
    assertEquals(0, buffer.position());
    byte[] bytes = new byte[buffer.remaining()];
    buffer.get(bytes);
    byte[] expected = new byte[batch.remaining()];
    batch.duplicate().get(expected);
    assertArrayEquals(expected, bytes);
    assertEquals(1, RecordConversion.fromKafka(MemoryRecords.readableRecords(KafkaCodec.requestBuffer(frame)))
        .count());
  }

  @Test
  void aDamagedBatchReadThroughTheArrayIsStillRefusedAsCorrupt() {
    ByteBuffer batch = MemoryRecords.withRecords(Compression.NONE,
        new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))).buffer();
    batch.put(batch.limit() - 1, (byte) (batch.get(batch.limit() - 1) ^ 1));
    RecordConversion.RefusedRecords refused = assertThrows(RecordConversion.RefusedRecords.class,
        () -> RecordConversion.fromKafka(MemoryRecords.readableRecords(KafkaCodec.requestBuffer(sliceOfARead(batch)))));
    assertEquals(Errors.CORRUPT_MESSAGE, refused.error);
  }
}
