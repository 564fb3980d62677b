package io.felix.client;

import com.google.protobuf.ByteString;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Record;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Records for one shard sent as one ProduceRequest. The records are encoded once, at the first attempt, and the
 * same bytes are re-sent on retries. Owned by the {@link BatchAccumulator} (under its lock) until sent, then by
 * whoever handles the answer.
 */
final class ProduceBatch {
  final String stream;
  final int shard;
  final long createdNanos;
  final long deadlineNanos;
  private final List<Record> records = new ArrayList<>();
  private final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
  private int bytes;
  private ByteString encoded;
  int attempts;
  long retryAtNanos = Long.MIN_VALUE;
  /** Idempotent producer: the producer epoch and first sequence number, fixed at the first send; -1 until then. */
  int producerEpoch = -1;
  int baseSequence = -1;
  /** Numbers the sends of this batch; the answer to send {@link #awaitedSend} is the only one taken (-1: none). */
  int lastSend;
  int awaitedSend = -1;
  /** Where and when the awaited send went: the leader (and its epoch) as the client knew it, and its address. */
  ClusterView.Leader sentTo = ClusterView.Leader.UNKNOWN;
  HostPort sentAddress;
  long sentAtNanos;

  ProduceBatch(String stream, int shard, long createdNanos, long deliveryTimeoutNanos) {
    this.stream = stream;
    this.shard = shard;
    this.createdNanos = createdNanos;
    this.deadlineNanos = createdNanos + deliveryTimeoutNanos;
  }

  void add(Record record, int encodedSize, CompletableFuture<RecordMetadata> future) {
    records.add(record);
    futures.add(future);
    bytes += encodedSize;
  }

  int bytes() {
    return bytes;
  }

  int size() {
    return records.size();
  }

  List<CompletableFuture<RecordMetadata>> futures() {
    return futures;
  }

  ByteString encoded() {
    if (encoded == null) {
      encoded = RecordLists.encode(records);
      records.clear();
    }
    return encoded;
  }

  boolean hasSequence() {
    return baseSequence >= 0;
  }

  void succeeded(long baseOffset) {
    for (int i = 0; i < futures.size(); i++) {
      futures.get(i).complete(new RecordMetadata(stream, shard, baseOffset + i));
    }
  }

  void failed(FelixException cause) {
    for (CompletableFuture<RecordMetadata> f : futures) {
      f.completeExceptionally(cause);
    }
  }
}
