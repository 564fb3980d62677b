package io.felix.bench.kafka;

import io.felix.broker.kafka.KafkaCodec;
import io.felix.broker.kafka.RecordConversion;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import com.google.protobuf.ByteString;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the Kafka listener pays to convert between Kafka's record batches (v2, uncompressed, as ProducerPerformance
 * sends them) and Felix's stored record lists, per batch: {@code produce} decodes a Kafka batch (CRC check included)
 * into the Felix record list the leader appends, from the bytes as the listener holds them (a slice of what the
 * socket read, turned into a buffer by {@link KafkaCodec#requestBuffer}); {@code produceFromReadOnlyBuffer} decodes
 * the same bytes from Pekko's read-only view of them, as the listener did before 2026-12-07, when kafka-clients checks
 * the CRC one byte at a time; {@code fetch} encodes a stored Felix batch as a Kafka batch (CRC included). Divide the
 * batch's bytes by the time per batch for MB/s, or invert for CPU-ms per MiB.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 10)
@Fork(1)
public class KafkaConversionBenchmark {
  @Param({"16", "128"})
  public int recordsPerBatch;

  @Param({"100", "1024"})
  public int recordBytes;

  /** The Kafka batch inside a larger read, as the listener's frame decoder slices a request out of one. */
  private org.apache.pekko.util.ByteString kafkaFrame;
  private List<RecordBatch> felixBatches;

  @Setup
  public void setUp() {
    Random random = new Random(42);
    SimpleRecord[] records = new SimpleRecord[recordsPerBatch];
    List<Record> felix = new ArrayList<>();
    long now = System.currentTimeMillis();
    for (int i = 0; i < recordsPerBatch; i++) {
      byte[] value = new byte[recordBytes];
      random.nextBytes(value);
      records[i] = new SimpleRecord(now, null, value);
      felix.add(Record.newBuilder().setTimestampMs(now).setValue(ByteString.copyFrom(value)).build());
    }
    ByteBuffer batch = MemoryRecords.withIdempotentRecords(Compression.NONE, 7L, (short) 0, 0, records).buffer();
    byte[] read = new byte[batch.remaining() + 8];
    batch.get(read, 4, batch.remaining());
    kafkaFrame = org.apache.pekko.util.ByteString.fromArrayUnsafe(read).slice(4, read.length - 4);
    ByteString list = RecordLists.encode(felix);
    felixBatches = List.of(RecordBatch.newBuilder().setBaseOffset(1000).setRecordCount(recordsPerBatch)
        .setLeaderEpoch(3).setRecords(list).build());
  }

  @Benchmark
  public Object produce() throws Exception {
    return RecordConversion.fromKafka(MemoryRecords.readableRecords(KafkaCodec.requestBuffer(kafkaFrame)));
  }

  @Benchmark
  public Object produceFromReadOnlyBuffer() throws Exception {
    return RecordConversion.fromKafka(MemoryRecords.readableRecords(kafkaFrame.asByteBuffer()));
  }

  @Benchmark
  public Object fetch() {
    return RecordConversion.toKafka(felixBatches, 1000, 1000 + recordsPerBatch);
  }
}
