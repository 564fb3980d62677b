package io.felix.broker.kafka;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.security.Operation;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ShardReplica;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.EpochEndOffset;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * ListOffsets and OffsetForLeaderEpoch, answered from this broker's replica of the partition: its leader in direct
 * mode (NOT_LEADER_OR_FOLLOWER elsewhere, as Kafka), any replica in forward mode. Earliest is the log start, latest
 * the commit offset (Kafka's high watermark, which is also its last stable offset here). A timestamp is found by
 * reading the committed log from its start to the first record at or after it: Felix keeps no time index, so this
 * costs a read of the partition up to that record. OffsetForLeaderEpoch finds the end of an epoch by a binary search
 * of the committed log's batches (their epochs grow with their offsets).
 */
final class KafkaOffsets {
  private static final Duration DESCRIBE_TIMEOUT = Duration.ofSeconds(5);
  private static final int SCAN_BYTES = 1 << 20;

  private final KafkaContext ctx;

  KafkaOffsets(KafkaContext ctx) {
    this.ctx = ctx;
  }

  /** @param version leader epochs are answered from version 4 (the field does not exist before) */
  CompletionStage<ListOffsetsResponseData> listOffsets(ListOffsetsRequestData request, short version,
      String principal) {
    ListOffsetsResponseData answer = new ListOffsetsResponseData();
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (ListOffsetsRequestData.ListOffsetsTopic topic : request.topics()) {
      ListOffsetsTopicResponse t = new ListOffsetsTopicResponse().setName(topic.name());
      answer.topics().add(t);
      for (ListOffsetsRequestData.ListOffsetsPartition p : topic.partitions()) {
        ListOffsetsPartitionResponse r = new ListOffsetsPartitionResponse().setPartitionIndex(p.partitionIndex())
            .setTimestamp(-1).setOffset(-1).setLeaderEpoch(-1);
        t.partitions().add(r);
        pending.add(listOne(topic.name(), p, version >= 4, principal, r));
      }
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> answer);
  }

  private CompletableFuture<?> listOne(String topic, ListOffsetsRequestData.ListOffsetsPartition p,
      boolean withEpoch, String principal, ListOffsetsPartitionResponse r) {
    return status(topic, p.partitionIndex(), p.currentLeaderEpoch(), principal).thenCompose(found -> {
      if (found.error != Errors.NONE) {
        r.setErrorCode(found.error.code());
        return CompletableFuture.completedFuture(null);
      }
      ReplicaStatus s = found.status;
      int epoch = withEpoch ? (int) found.assignment.leaderEpoch() : -1;
      long ts = p.timestamp();
      if (ts == ListOffsetsRequest.EARLIEST_TIMESTAMP || ts == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
        r.setErrorCode(Errors.NONE.code()).setOffset(s.logStartOffset()).setLeaderEpoch(epoch);
        return CompletableFuture.completedFuture(null);
      }
      if (ts == ListOffsetsRequest.LATEST_TIMESTAMP) {
        r.setErrorCode(Errors.NONE.code()).setOffset(s.commitOffset()).setLeaderEpoch(epoch);
        return CompletableFuture.completedFuture(null);
      }
      if (ts < 0 && ts != ListOffsetsRequest.MAX_TIMESTAMP) {
        r.setErrorCode(Errors.INVALID_REQUEST.code());
        return CompletableFuture.completedFuture(null);
      }
      Scan scan = new Scan(ts == ListOffsetsRequest.MAX_TIMESTAMP, ts);
      return scan(topic, p.partitionIndex(), s.logStartOffset(), s.commitOffset(), principal, scan)
          .thenAccept(done -> {
            r.setErrorCode(Errors.NONE.code());
            if (done.offset >= 0) {
              r.setOffset(done.offset).setTimestamp(done.timestamp)
                  .setLeaderEpoch(withEpoch ? (int) done.epoch : -1);
            }
          });
    });
  }

  /** A timestamp search's state: the first record at or after {@code target}, or the one with the largest stamp. */
  private static final class Scan {
    final boolean max;
    final long target;
    long offset = -1;
    long timestamp = -1;
    long epoch = -1;

    Scan(boolean max, long target) {
      this.max = max;
      this.target = target;
    }

    /** @return true when the search is over */
    boolean take(RecordBatch batch) {
      List<Record> records = RecordLists.decode(batch.getRecords()).getRecordsList();
      for (int i = 0; i < records.size(); i++) {
        long ts = records.get(i).getTimestampMs();
        if (max ? ts > timestamp : ts >= target) {
          offset = batch.getBaseOffset() + i;
          timestamp = ts;
          epoch = batch.getLeaderEpoch();
          if (!max) {
            return true;
          }
        }
      }
      return false;
    }
  }

  private CompletableFuture<Scan> scan(String topic, int partition, long from, long until, String principal,
      Scan scan) {
    if (from >= until) {
      return CompletableFuture.completedFuture(scan);
    }
    return read(topic, partition, from, SCAN_BYTES, principal).thenCompose(response -> {
      if (response.hasError() && KafkaErrors.of(response) != Errors.NONE) {
        return CompletableFuture.completedFuture(scan);
      }
      for (RecordBatch batch : response.getFetch().getBatchesList()) {
        if (scan.take(batch)) {
          return CompletableFuture.completedFuture(scan);
        }
      }
      long next = response.getFetch().getNextOffset();
      return next > from ? scan(topic, partition, next, until, principal, scan)
          : CompletableFuture.completedFuture(scan);
    });
  }

  CompletionStage<OffsetForLeaderEpochResponseData> offsetForLeaderEpoch(OffsetForLeaderEpochRequestData request,
      String principal) {
    OffsetForLeaderEpochResponseData answer = new OffsetForLeaderEpochResponseData();
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.topics()) {
      OffsetForLeaderTopicResult t = new OffsetForLeaderTopicResult().setTopic(topic.topic());
      answer.topics().add(t);
      for (OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p : topic.partitions()) {
        EpochEndOffset r = new EpochEndOffset().setPartition(p.partition()).setLeaderEpoch(-1).setEndOffset(-1);
        t.partitions().add(r);
        pending.add(epochEnd(topic.topic(), p, principal, r));
      }
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> answer);
  }

  /**
   * Kafka's answer for an epoch: the latest epoch gets the log end; an older one the offset where the next epoch
   * starts (in the committed log; an epoch that ends above the commit offset gets the commit offset, which no
   * consumer has passed); an epoch newer than the log's last is undefined (-1, -1).
   */
  private CompletableFuture<?> epochEnd(String topic, OffsetForLeaderEpochRequestData.OffsetForLeaderPartition p,
      String principal, EpochEndOffset r) {
    return status(topic, p.partition(), p.currentLeaderEpoch(), principal).thenCompose(found -> {
      if (found.error != Errors.NONE) {
        r.setErrorCode(found.error.code());
        return CompletableFuture.completedFuture(null);
      }
      ReplicaStatus s = found.status;
      long last = s.lastEpoch();
      r.setErrorCode(Errors.NONE.code());
      if (p.leaderEpoch() > last || p.leaderEpoch() < 0) {
        return CompletableFuture.completedFuture(null);
      }
      if (p.leaderEpoch() == last) {
        r.setLeaderEpoch((int) last).setEndOffset(s.logEndOffset());
        return CompletableFuture.completedFuture(null);
      }
      return firstAbove(topic, p.partition(), p.leaderEpoch(), s.logStartOffset(), s.commitOffset(), principal)
          .thenAccept(end -> r.setLeaderEpoch(p.leaderEpoch()).setEndOffset(end));
    });
  }

  /** The base offset of the first committed batch in [lo, hi) of an epoch above {@code epoch}, else {@code hi}. */
  private CompletableFuture<Long> firstAbove(String topic, int partition, long epoch, long lo, long hi,
      String principal) {
    if (lo >= hi) {
      return CompletableFuture.completedFuture(hi);
    }
    long mid = lo + (hi - lo) / 2;
    return read(topic, partition, mid, 1, principal).thenCompose(response -> {
      List<RecordBatch> batches = response.hasFetch() ? response.getFetch().getBatchesList() : List.of();
      if (batches.isEmpty()) {
        return firstAbove(topic, partition, epoch, lo, mid, principal);
      }
      RecordBatch b = batches.get(0);
      if (b.getLeaderEpoch() > epoch) {
        long base = Math.max(lo, b.getBaseOffset());
        return base <= lo ? CompletableFuture.completedFuture(base)
            : firstAbove(topic, partition, epoch, lo, base, principal);
      }
      long end = b.getBaseOffset() + b.getRecordCount();
      return firstAbove(topic, partition, epoch, Math.max(end, mid + 1), hi, principal);
    });
  }

  private CompletableFuture<Response> read(String topic, int partition, long offset, int maxBytes,
      String principal) {
    FetchRequest fetch = FetchRequest.newBuilder().setStream(topic).setShard(partition).setOffset(offset)
        .setMaxBytes(maxBytes).setMaxWaitMs(0).setForwardIfNotLeader(ctx.forwards()).build();
    return ctx.felix(Request.newBuilder().setFetch(fetch).build(), principal).toCompletableFuture();
  }

  /** This broker's replica of a partition, if it may answer offsets for it, with the partition's assignment. */
  private record Found(Errors error, ShardAssignment assignment, ReplicaStatus status) {}

  private CompletableFuture<Found> status(String topic, int partition, int currentLeaderEpoch, String principal) {
    if (!ctx.authorized(principal, KafkaMetadata.resourceOf(ctx.table(), topic), topic, Operation.DESCRIBE)) {
      return CompletableFuture.completedFuture(new Found(Errors.TOPIC_AUTHORIZATION_FAILED, null, null));
    }
    Optional<ShardAssignment> a = ctx.shard(topic, partition);
    if (a.isEmpty()) {
      return CompletableFuture.completedFuture(new Found(Errors.UNKNOWN_TOPIC_OR_PARTITION, null, null));
    }
    if (currentLeaderEpoch >= 0 && currentLeaderEpoch != a.get().leaderEpoch()) {
      return CompletableFuture.completedFuture(new Found(currentLeaderEpoch < a.get().leaderEpoch()
          ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH, null, null));
    }
    Optional<ActorRef<ShardReplica.Command>> replica = ctx.registry.replica(new ShardId(topic, partition));
    boolean leads = a.get().leader() == ctx.brokerId();
    if (replica.isEmpty() || !(leads || ctx.forwards())) {
      return CompletableFuture.completedFuture(new Found(Errors.NOT_LEADER_OR_FOLLOWER, null, null));
    }
    return AskPattern.<ShardReplica.Command, ReplicaStatus>ask(replica.get(), ShardReplica.Describe::new,
            DESCRIBE_TIMEOUT, ctx.system.scheduler()).toCompletableFuture()
        .thenApply(s -> s.failed() || (!ctx.forwards() && s.role() != ReplicaRole.LEADER)
            ? new Found(Errors.NOT_LEADER_OR_FOLLOWER, null, null) : new Found(Errors.NONE, a.get(), s))
        .exceptionally(failure -> new Found(Errors.REQUEST_TIMED_OUT, null, null));
  }
}
