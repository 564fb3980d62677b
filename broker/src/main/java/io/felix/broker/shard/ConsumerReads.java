package io.felix.broker.shard;

import com.google.protobuf.UnsafeByteOperations;
import io.felix.broker.assignment.ShardId;
import io.felix.protocol.Errors;
import io.felix.broker.log.BatchDecoder;
import io.felix.broker.log.LogBatch;
import io.felix.broker.log.LogRead;
import io.felix.broker.log.OffsetOutOfRangeException;
import io.felix.broker.log.ShardLog;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchResponse;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Response;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * Consumer fetches of one replica: only records below the commit offset are served; a fetch that finds none waits
 * (long poll) until the commit offset passes its offset or its max wait ends, then gets what there is.
 *
 * <p>Epoch markers (the empty batch a new leader appends so that it can commit, see {@link ShardLeader}) hold no
 * record and are left out of answers: they leave one-offset gaps that consumers skip. Owned by the replica actor.
 */
final class ConsumerReads {
  private record Waiting(ShardReplica.ClientFetch fetch, long deadlineNanos) {}

  private final ShardId id;
  private final ShardLog log;
  private final ReplicaClock clock;
  private final List<Waiting> waiting = new ArrayList<>();

  ConsumerReads(ShardId id, ShardLog log, ReplicaClock clock) {
    this.id = id;
    this.log = log;
    this.clock = clock;
  }

  /** Answers now if committed records exist at the offset (or the fetch does not wait), else parks it. */
  void fetch(ShardReplica.ClientFetch fetch, long commitOffset, boolean leader) {
    long offset = fetch.request().getOffset();
    if (offset < log.logStartOffset() || (leader && offset > log.logEndOffset())) {
      fetch.reply().complete(outOfRange("offset " + offset + " of " + id + " is outside the log ["
          + log.logStartOffset() + ", " + log.logEndOffset() + "]", commitOffset));
      return;
    }
    if (offset < commitOffset || fetch.waitMs() == 0) {
      fetch.reply().complete(answer(fetch, commitOffset));
    } else {
      waiting.add(new Waiting(fetch, clock.nanoTime() + fetch.waitMs() * 1_000_000L));
    }
  }

  /** Whether a fetch waits (the replica's work tick must run to answer it when its wait ends). */
  boolean waiting() {
    return !waiting.isEmpty();
  }

  void onCommitAdvanced(long commitOffset) {
    if (waiting.isEmpty()) {
      return;
    }
    for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
      Waiting w = it.next();
      if (w.fetch().request().getOffset() < commitOffset) {
        it.remove();
        w.fetch().reply().complete(answer(w.fetch(), commitOffset));
      }
    }
  }

  /** Answers fetches whose wait is over with what is committed (usually nothing). */
  void onTick(long nowNanos, long commitOffset) {
    if (waiting.isEmpty()) {
      return;
    }
    for (Iterator<Waiting> it = waiting.iterator(); it.hasNext(); ) {
      Waiting w = it.next();
      if (nowNanos - w.deadlineNanos() >= 0) {
        it.remove();
        w.fetch().reply().complete(answer(w.fetch(), commitOffset));
      }
    }
  }

  /** On a change of role or stop: every parked fetch gets what is committed now; the client asks again. */
  void releaseAll(long commitOffset) {
    for (Waiting w : waiting) {
      w.fetch().reply().complete(answer(w.fetch(), commitOffset));
    }
    waiting.clear();
  }

  /** OFFSET_OUT_OF_RANGE with where the log starts and what is committed, for the consumer's reset policy. */
  private Response outOfRange(String message, long commitOffset) {
    return Errors.response(0, Errors.of(ErrorCode.OFFSET_OUT_OF_RANGE, message).toBuilder()
        .setLogStartOffset(log.logStartOffset()).setCommitOffset(commitOffset).build());
  }

  private Response answer(ShardReplica.ClientFetch fetch, long commitOffset) {
    FetchResponse.Builder b = FetchResponse.newBuilder()
        .setCommitOffset(commitOffset).setLogStartOffset(log.logStartOffset());
    long offset = fetch.request().getOffset();
    int budget = fetch.maxBytes();
    try {
      // Reads stop at a segment end and markers are dropped: continue until something is found or the budget is spent.
      while (offset < commitOffset && budget > 0) {
        LogRead read = log.read(offset, budget, commitOffset);
        if (read.isEmpty()) {
          break;
        }
        budget -= read.batches().remaining();
        for (BatchDecoder d = read.decoder(); d.hasNext(); ) {
          LogBatch batch = d.next();
          if (batch.payloadLength() > 0) {
            b.addBatches(RecordBatch.newBuilder().setBaseOffset(batch.baseOffset()).setRecordCount(batch.recordCount())
                .setLeaderEpoch(batch.leaderEpoch()).setRecords(UnsafeByteOperations.unsafeWrap(batch.payload())));
          }
        }
        offset = read.nextOffset();
        if (b.getBatchesCount() > 0) {
          break;
        }
      }
    } catch (OffsetOutOfRangeException e) {
      return outOfRange(id + ": " + e.getMessage(), commitOffset);
    }
    // Past the markers too: a fetch that found only a marker must still move the consumer on.
    return Response.newBuilder().setFetch(b.setNextOffset(offset)).build();
  }
}
