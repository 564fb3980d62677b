package io.felix.broker.group;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.RecordListCheck;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.ShardReplica;
import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Response;
import io.felix.protocol.offsets.OffsetKey;
import io.felix.protocol.offsets.OffsetValue;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * The internal, replicated offsets store: the stream {@value #STREAM}, whose records are keyed by (group, stream,
 * shard) and hold the committed offset. Group {@code g} belongs to shard {@link #shardOf}; the leader of that shard
 * coordinates it. Writes and reads go to this broker's own replica of the shard, as a client's would (an append
 * is answered once stored on a majority: acks quorum), so the store has the data plane's durability and failover.
 */
public final class OffsetsStore {
  public static final String STREAM = InternalStreams.CONSUMER_OFFSETS;
  private static final int READ_BYTES = 1 << 20;

  /** A committed offset as read from or written to the store, with where its record sits in the shard's log. */
  public record Stored(long logOffset, OffsetValue value) {}

  /** The load of one shard: the latest record per key, and the offset of the barrier (everything below is read). */
  public record Loaded(Map<OffsetKey, Stored> offsets, long barrierOffset) {}

  /** The store answered with an error, or its leader is gone. */
  public static final class StoreException extends RuntimeException {
    final ErrorCode code;

    StoreException(ErrorCode code, String message) {
      super(message);
      this.code = code;
    }
  }

  private final ReplicaRegistry registry;
  private final Duration timeout;

  public OffsetsStore(ReplicaRegistry registry, Duration timeout) {
    this.registry = registry;
    this.timeout = timeout;
  }

  /** The offsets shard that coordinates {@code group} (String.hashCode is specified, so every JVM agrees). */
  public static int shardOf(String group, int shards) {
    return Math.floorMod(group.hashCode(), shards);
  }

  /**
   * Appends these records to the offsets shard with acks quorum; completes with the batch's base offset and the
   * epoch it was appended at once stored on a majority.
   */
  public CompletionStage<long[]> append(int shard, List<Record> records) {
    ByteString bytes = RecordLists.encode(records);
    ProduceRequest request = ProduceRequest.newBuilder().setStream(STREAM).setShard(shard).setRecords(bytes)
        .setAcks(Acks.QUORUM).setTimeoutMs((int) timeout.toMillis()).build();
    CompletableFuture<Response> reply = new CompletableFuture<>();
    try {
      replica(shard).tell(new ShardReplica.ClientProduce(request, RecordListCheck.scan(bytes), reply));
    } catch (RecordListCheck.InvalidRecordsException e) {
      return CompletableFuture.failedFuture(new IllegalStateException("an offsets record is invalid", e));
    } catch (StoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    return reply.thenApply(r -> {
      failOnError(r);
      return new long[] {r.getProduce().getBaseOffset(), r.getProduce().getLeaderEpoch()};
    });
  }

  /**
   * Rebuilds the committed offsets of {@code shard}: writes a barrier record with acks quorum (once it is stored on a
   * majority, every record before it is committed, whatever this leader knew of the commit offset when it took
   * over), then reads the shard up to the barrier; the latest record per key wins.
   */
  public CompletionStage<Loaded> load(int shard) {
    Record barrier = Record.newBuilder().setKey(OffsetKey.getDefaultInstance().toByteString())
        .setTimestampMs(System.currentTimeMillis()).build();
    return append(shard, List.of(barrier)).thenCompose(at -> {
      Map<OffsetKey, Stored> offsets = new HashMap<>();
      return readFrom(shard, 0, at[0], offsets).thenApply(done -> new Loaded(offsets, at[0]));
    });
  }

  private CompletionStage<Void> readFrom(int shard, long offset, long end, Map<OffsetKey, Stored> into) {
    if (offset >= end) {
      return CompletableFuture.completedFuture(null);
    }
    FetchRequest request = FetchRequest.newBuilder().setStream(STREAM).setShard(shard).setOffset(offset)
        .setMaxBytes(READ_BYTES).build();
    CompletableFuture<Response> reply = new CompletableFuture<>();
    try {
      replica(shard).tell(new ShardReplica.ClientFetch(request, READ_BYTES, 0, reply));
    } catch (StoreException e) {
      return CompletableFuture.failedFuture(e);
    }
    return reply.thenCompose(r -> {
      if (Errors.isError(r) && r.getError().getCode() == ErrorCode.OFFSET_OUT_OF_RANGE
          && r.getError().getLogStartOffset() > offset) {
        return readFrom(shard, r.getError().getLogStartOffset(), end, into);
      }
      failOnError(r);
      long next = Math.max(offset, r.getFetch().getNextOffset());
      for (RecordBatch batch : r.getFetch().getBatchesList()) {
        List<Record> records = RecordLists.decode(batch.getRecords()).getRecordsList();
        for (int i = 0; i < records.size(); i++) {
          long at = batch.getBaseOffset() + i;
          if (at >= offset && at < end) {
            apply(at, records.get(i), into);
          }
          next = Math.max(next, at + 1);
        }
      }
      if (next <= offset) {
        return CompletableFuture.failedFuture(new StoreException(ErrorCode.TIMEOUT,
            "reading " + STREAM + "/" + shard + " made no progress at offset " + offset));
      }
      return readFrom(shard, next, end, into);
    });
  }

  private static void apply(long at, Record record, Map<OffsetKey, Stored> into) {
    try {
      OffsetKey key = OffsetKey.parseFrom(record.getKey());
      if (key.getGroup().isEmpty()) {
        return; // a load barrier
      }
      into.put(key, new Stored(at, OffsetValue.parseFrom(record.getValue())));
    } catch (InvalidProtocolBufferException e) {
      throw new CompletionException(new StoreException(ErrorCode.INVALID_REQUEST,
          "record " + at + " of " + STREAM + " is not an offsets record: " + e.getMessage()));
    }
  }

  private org.apache.pekko.actor.typed.ActorRef<ShardReplica.Command> replica(int shard) {
    return registry.replica(new ShardId(STREAM, shard)).orElseThrow(() -> new StoreException(
        ErrorCode.NOT_COORDINATOR, "this broker holds no replica of " + STREAM + "/" + shard));
  }

  private static void failOnError(Response r) {
    if (Errors.isError(r)) {
      throw new StoreException(r.getError().getCode() == ErrorCode.NOT_LEADER ? ErrorCode.NOT_COORDINATOR
          : r.getError().getCode(), Errors.format(r.getError()));
    }
  }
}
