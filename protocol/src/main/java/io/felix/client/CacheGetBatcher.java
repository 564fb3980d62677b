package io.felix.client;

import com.google.protobuf.ByteString;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.MultiGetResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A cache's gets, coalesced per shard into MultiGet requests (auto-pipelining, as Redis clients batch commands
 * that queue behind one in flight). A get is sent at once, alone, while fewer than {@code inFlightPerShard}
 * requests of its shard are unanswered; otherwise it waits, and the answer of one of those requests sends every get
 * that queued meanwhile (up to {@code maxKeys}) as the shard's next request. There is no timer: a get waits only
 * for the requests ahead of it, so a lone get costs one round trip and many concurrent gets cost one request per
 * batch, not one per key, on the client and on the broker.
 *
 * <p>Each request bounds the values' bytes of its answer ({@code maxBytes}, so it fits in the client's frame); a
 * key the broker did not read within the bound (not_read) goes first in the shard's next request. A request that
 * fails (after the client's retries) fails every get in it. Thread-safe.
 */
final class CacheGetBatcher {
  /** Sends one MultiGet of {@code keys} of {@code shard} (-1: the broker chooses, plain mode), retried. */
  interface Sender {
    CompletableFuture<MultiGetResponse> send(int shard, List<ByteString> keys, int maxBytes);
  }

  private record Pending(ByteString key, CompletableFuture<CacheValue> value) {}

  /** One shard's gets: those waiting to be sent, and how many of its requests are out. Guarded by itself. */
  private static final class ShardQueue {
    final ArrayDeque<Pending> waiting = new ArrayDeque<>();
    int inFlight;
  }

  private final Sender sender;
  private final int maxKeys;
  private final int inFlightPerShard;
  private final int maxBytes;
  private final Map<Integer, ShardQueue> queues = new ConcurrentHashMap<>();

  CacheGetBatcher(Sender sender, int maxKeys, int inFlightPerShard, int maxBytes) {
    this.sender = sender;
    this.maxKeys = maxKeys;
    this.inFlightPerShard = inFlightPerShard;
    this.maxBytes = maxBytes;
  }

  /** The key's entry as its shard's leader answers it (not found: {@code found} false). */
  CompletableFuture<CacheValue> get(int shard, ByteString key) {
    ShardQueue queue = queues.computeIfAbsent(shard, s -> new ShardQueue());
    Pending pending = new Pending(key, new CompletableFuture<>());
    List<Pending> batch;
    synchronized (queue) {
      queue.waiting.addLast(pending);
      batch = nextBatch(queue);
    }
    if (batch != null) {
      send(shard, queue, batch);
    }
    return pending.value();
  }

  /** The gets to send now, taken from the queue and counted in flight; null when none may go. */
  private List<Pending> nextBatch(ShardQueue queue) {
    if (queue.waiting.isEmpty() || queue.inFlight >= inFlightPerShard) {
      return null;
    }
    List<Pending> batch = new ArrayList<>(Math.min(maxKeys, queue.waiting.size()));
    while (batch.size() < maxKeys && !queue.waiting.isEmpty()) {
      batch.add(queue.waiting.pollFirst());
    }
    queue.inFlight++;
    return batch;
  }

  private void send(int shard, ShardQueue queue, List<Pending> batch) {
    List<ByteString> keys = new ArrayList<>(batch.size());
    batch.forEach(p -> keys.add(p.key()));
    sender.send(shard, keys, maxBytes).whenComplete((answer, failure) -> answered(shard, queue, batch, answer,
        failure));
  }

  private void answered(int shard, ShardQueue queue, List<Pending> batch, MultiGetResponse answer,
      Throwable failure) {
    if (failure == null && answer.getEntriesCount() != batch.size()) {
      failure = new IllegalStateException("a MultiGet of " + batch.size() + " keys was answered with "
          + answer.getEntriesCount() + " entries");
    }
    List<Pending> notRead = new ArrayList<>();
    if (failure == null) {
      for (int i = 0; i < batch.size(); i++) {
        if (answer.getEntries(i).getNotRead()) {
          notRead.add(batch.get(i));
        }
      }
    }
    List<Pending> next;
    synchronized (queue) {
      queue.inFlight--;
      for (int i = notRead.size() - 1; i >= 0; i--) {
        queue.waiting.addFirst(notRead.get(i));
      }
      next = nextBatch(queue);
    }
    if (next != null) {
      send(shard, queue, next); // the next request goes out before this one's callers run
    }
    for (int i = 0; i < batch.size(); i++) {
      if (failure != null) {
        batch.get(i).value().completeExceptionally(failure);
      } else if (!answer.getEntries(i).getNotRead()) {
        batch.get(i).value().complete(answer.getEntries(i));
      }
    }
  }
}
