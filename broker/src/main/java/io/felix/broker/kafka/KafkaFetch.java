package io.felix.broker.kafka;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.FetchResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Fetch, through the native fetch path: each partition is a Felix fetch of committed records (so
 * read_uncommitted and read_committed read the same: Felix has no transactions), converted to Kafka record batches.
 *
 * <p>Waiting: every partition is first read without waiting; if that finds fewer than min_bytes and max_wait_ms is
 * above 0, every partition is read again as a long poll of max_wait_ms, and the answer goes as soon as one of them
 * brings records (or when all have waited). So min_bytes above 1 is met as "something arrived" after the first wait,
 * not summed across waits.
 *
 * <p>Leader epochs (KIP-320): a partition's current_leader_epoch older than the assignment's is FENCED_LEADER_EPOCH,
 * a newer one UNKNOWN_LEADER_EPOCH, as Kafka answers. Fetch sessions (KIP-227) are declined: every answer carries
 * session id 0, so clients send full fetches; a request naming a session gets FETCH_SESSION_ID_NOT_FOUND.
 */
final class KafkaFetch {
  private final KafkaContext ctx;

  KafkaFetch(KafkaContext ctx) {
    this.ctx = ctx;
  }

  private record Part(String topic, FetchRequestData.FetchPartition partition) {}

  CompletionStage<FetchResponseData> fetch(FetchRequestData request, String principal) {
    if (request.sessionId() != 0) {
      return CompletableFuture.completedFuture(new FetchResponseData().setSessionId(0)
          .setErrorCode(Errors.FETCH_SESSION_ID_NOT_FOUND.code()));
    }
    List<Part> parts = new ArrayList<>();
    for (FetchRequestData.FetchTopic topic : request.topics()) {
      for (FetchRequestData.FetchPartition p : topic.partitions()) {
        parts.add(new Part(topic.topic(), p));
      }
    }
    int maxBytes = request.maxBytes() > 0 ? request.maxBytes() : Integer.MAX_VALUE;
    return round(parts, 0, maxBytes, principal).thenCompose(first -> {
      long bytes = first.values().stream().mapToLong(p -> p.records() == null ? 0 : p.records().sizeInBytes()).sum();
      boolean errors = first.values().stream().anyMatch(p -> p.errorCode() != Errors.NONE.code());
      if (request.maxWaitMs() <= 0 || bytes >= Math.max(1, request.minBytes()) || errors || parts.isEmpty()) {
        return CompletableFuture.completedFuture(answer(request, first));
      }
      return longPoll(parts, request.maxWaitMs(), maxBytes, principal, first)
          .thenApply(results -> answer(request, results));
    });
  }

  /** Reads every partition once, waiting up to {@code waitMs} each; completes when all have answered. */
  private CompletableFuture<Map<Part, PartitionData>> round(List<Part> parts, int waitMs, int maxBytes,
      String principal) {
    Map<Part, PartitionData> results = new HashMap<>();
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (Part part : parts) {
      pending.add(one(part, waitMs, maxBytes, principal).thenAccept(p -> {
        synchronized (results) {
          results.put(part, p);
        }
      }));
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> results);
  }

  /**
   * Every partition as a long poll; completes with {@code before} updated by the first poll that brings records
   * (or an error), or by all of them once all have waited. Polls still parked then complete into nothing.
   */
  private CompletableFuture<Map<Part, PartitionData>> longPoll(List<Part> parts, int waitMs, int maxBytes,
      String principal, Map<Part, PartitionData> before) {
    CompletableFuture<Map<Part, PartitionData>> answer = new CompletableFuture<>();
    Map<Part, PartitionData> results = new HashMap<>(before);
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (Part part : parts) {
      pending.add(one(part, waitMs, maxBytes, principal).thenAccept(p -> {
        synchronized (results) {
          if (answer.isDone()) {
            return;
          }
          results.put(part, p);
          boolean brought = p.errorCode() != Errors.NONE.code()
              || (p.records() != null && p.records().sizeInBytes() > 0);
          if (brought) {
            answer.complete(new HashMap<>(results));
          }
        }
      }));
    }
    CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenRun(() -> {
      synchronized (results) {
        answer.complete(new HashMap<>(results));
      }
    });
    return answer;
  }

  private CompletableFuture<PartitionData> one(Part part, int waitMs, int maxBytes, String principal) {
    FetchRequestData.FetchPartition p = part.partition();
    PartitionData data = new PartitionData().setPartitionIndex(p.partition()).setHighWatermark(-1)
        .setLastStableOffset(-1).setLogStartOffset(-1).setRecords(MemoryRecords.EMPTY);
    Optional<ShardAssignment> a = ctx.shard(part.topic(), p.partition());
    if (a.isPresent() && p.currentLeaderEpoch() >= 0) {
      long epoch = a.get().leaderEpoch();
      if (p.currentLeaderEpoch() < epoch) {
        return CompletableFuture.completedFuture(data.setErrorCode(Errors.FENCED_LEADER_EPOCH.code()));
      }
      if (p.currentLeaderEpoch() > epoch) {
        return CompletableFuture.completedFuture(data.setErrorCode(Errors.UNKNOWN_LEADER_EPOCH.code()));
      }
    }
    int partitionBytes = Math.max(1, Math.min(p.partitionMaxBytes(), maxBytes));
    FetchRequest fetch = FetchRequest.newBuilder().setStream(part.topic()).setShard(p.partition())
        .setOffset(Math.max(0, p.fetchOffset())).setMaxBytes(partitionBytes).setMaxWaitMs(Math.max(0, waitMs))
        .setForwardIfNotLeader(ctx.forwards()).build();
    if (p.fetchOffset() < 0) {
      return CompletableFuture.completedFuture(data.setErrorCode(Errors.OFFSET_OUT_OF_RANGE.code()));
    }
    return ctx.felix(Request.newBuilder().setFetch(fetch).build(), principal).toCompletableFuture()
        .thenApply(response -> partitionOf(data, response, p.fetchOffset()))
        .exceptionally(failure -> data.setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()));
  }

  private static PartitionData partitionOf(PartitionData data, Response response, long fetchOffset) {
    Errors error = KafkaErrors.of(response);
    if (error != Errors.NONE) {
      if (error == Errors.OFFSET_OUT_OF_RANGE) {
        data.setLogStartOffset(response.getError().getLogStartOffset())
            .setHighWatermark(response.getError().getCommitOffset());
      }
      return data.setErrorCode(error.code());
    }
    FetchResponse f = response.getFetch();
    long next = f.getNextOffset() > 0 ? f.getNextOffset() : fetchOffset;
    return data.setErrorCode(Errors.NONE.code()).setHighWatermark(f.getCommitOffset())
        .setLastStableOffset(f.getCommitOffset()).setLogStartOffset(f.getLogStartOffset())
        .setRecords(RecordConversion.toKafka(f.getBatchesList(), fetchOffset, next));
  }

  private static FetchResponseData answer(FetchRequestData request, Map<Part, PartitionData> results) {
    FetchResponseData answer = new FetchResponseData().setSessionId(0).setErrorCode(Errors.NONE.code());
    for (FetchRequestData.FetchTopic topic : request.topics()) {
      FetchableTopicResponse t = new FetchableTopicResponse().setTopic(topic.topic()).setTopicId(topic.topicId());
      for (FetchRequestData.FetchPartition p : topic.partitions()) {
        PartitionData data = results.get(new Part(topic.topic(), p));
        t.partitions().add(data != null ? data : new PartitionData().setPartitionIndex(p.partition())
            .setErrorCode(Errors.NONE.code()).setHighWatermark(-1).setRecords(MemoryRecords.EMPTY));
      }
      answer.responses().add(t);
    }
    return answer;
  }
}
