package io.felix.broker.shard;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongPredicate;

/**
 * Produce requests a leader has appended and not yet answered, one queue per acks level (each in offset order,
 * since a level's condition is monotonic in the offset). A request is answered with success only when its whole
 * batch meets its level; otherwise it fails retriably when its deadline passes. Owned by the leader actor.
 */
final class PendingProduces {
  private record Pending(long baseOffset, long endOffset, long deadlineNanos, CompletableFuture<Response> reply) {}

  private final long epoch;
  private final ReplicaClock clock;
  private final ArrayDeque<Pending> quorum = new ArrayDeque<>();
  private final ArrayDeque<Pending> all = new ArrayDeque<>();
  private final ArrayDeque<Pending> leader = new ArrayDeque<>();

  PendingProduces(long epoch, ReplicaClock clock) {
    this.epoch = epoch;
    this.clock = clock;
  }

  /** Adds the appended batch {@code [baseOffset, endOffset)}: answered once {@code acks} is met or the timeout ends. */
  void add(Acks acks, long baseOffset, long endOffset, Duration timeout, CompletableFuture<Response> reply) {
    queue(acks).add(new Pending(baseOffset, endOffset, clock.nanoTime() + timeout.toNanos(), reply));
  }

  boolean isEmpty() {
    return quorum.isEmpty() && all.isEmpty() && leader.isEmpty();
  }

  /**
   * Answers every request whose level is met: quorum by the commit offset, leader by the leader's stored offset,
   * all by {@code allStored} (the commit offset and every in-sync replica hold the batch).
   */
  void complete(long commitOffset, long leaderStored, LongPredicate allStored) {
    completeWhile(quorum, end -> end <= commitOffset);
    completeWhile(leader, end -> end <= leaderStored);
    completeWhile(all, allStored);
  }

  /** Fails every request whose deadline is at or before {@code nowNanos} (same clock) with {@code timeoutError}. */
  void expire(long nowNanos, Error timeoutError) {
    for (ArrayDeque<Pending> q : List.of(quorum, all, leader)) {
      for (Iterator<Pending> it = q.iterator(); it.hasNext(); ) {
        Pending p = it.next();
        if (nowNanos - p.deadlineNanos() >= 0) {
          it.remove();
          p.reply().complete(Errors.response(0, timeoutError));
        }
      }
    }
  }

  /** Leadership ended: the outcome of every appended batch is unknown to this replica (it may still commit). */
  void failAll(String why) {
    Error error = Errors.of(ErrorCode.TIMEOUT, why + "; the batch was appended and may or may not be committed");
    for (ArrayDeque<Pending> q : List.of(quorum, all, leader)) {
      q.forEach(p -> p.reply().complete(Errors.response(0, error)));
      q.clear();
    }
  }

  private void completeWhile(ArrayDeque<Pending> q, LongPredicate met) {
    while (!q.isEmpty() && met.test(q.peek().endOffset())) {
      Pending p = q.poll();
      p.reply().complete(Response.newBuilder()
          .setProduce(ProduceResponse.newBuilder().setBaseOffset(p.baseOffset()).setLeaderEpoch(epoch)).build());
    }
  }

  private ArrayDeque<Pending> queue(Acks acks) {
    switch (acks) {
      case ALL:
        return all;
      case LEADER:
        return leader;
      default:
        return quorum;
    }
  }
}
