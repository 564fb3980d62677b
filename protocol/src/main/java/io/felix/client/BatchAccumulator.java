package io.felix.client;

import io.felix.protocol.client.Record;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * Per shard: the open batch still taking records, the closed batches waiting to be sent (a retried batch goes
 * back to the front), and how many are in flight. The sender thread waits on this object's monitor and is
 * woken when a batch fills, a send completes, or a flush or close starts. Thread-safe (everything under this
 * object's lock).
 *
 * <p>Records without key or shard stick to one shard per stream until that shard's open batch closes (full or
 * sent), then move to the next shard in order, so unkeyed records still fill large batches.
 */
final class BatchAccumulator {
  record ShardKey(String stream, int shard) {}

  private static final class ShardQueue {
    ProduceBatch open;
    final ArrayDeque<ProduceBatch> ready = new ArrayDeque<>();
    final List<ProduceBatch> inFlight = new ArrayList<>();
    /** Idempotence: the producer epoch and the sequence number of the next record sent to this shard. */
    int producerEpoch;
    int nextSequence;
  }

  private final ClientSettings settings;
  private final Map<ShardKey, ShardQueue> queues = new LinkedHashMap<>();
  private final Map<String, Integer> stickyShard = new HashMap<>();
  private final Map<String, Integer> roundRobin = new HashMap<>();
  private int flushing;
  private boolean closing;

  BatchAccumulator(ClientSettings settings) {
    this.settings = settings;
  }

  /**
   * Appends a record with neither key nor shard to the stream's sticky shard, moving to the next shard when the
   * sticky shard's batch is closed, or would overflow with this record (then it is closed first).
   *
   * @return the shard chosen
   */
  synchronized int appendUnkeyed(String stream, int[] shardIds, Record record, int encodedSize,
      CompletableFuture<RecordMetadata> future, long nowNanos) {
    int shard = stickyShard(stream, shardIds);
    ShardQueue q = queues.get(new ShardKey(stream, shard));
    if (q != null && q.open != null && q.open.bytes() + encodedSize > settings.batchSizeBytes()) {
      closeOpen(q);
      shard = stickyShard(stream, shardIds);
    }
    append(stream, shard, record, encodedSize, future, nowNanos);
    return shard;
  }

  /** The sticky shard: kept while its batch is open, else the next shard in turn. */
  private int stickyShard(String stream, int[] shardIds) {
    Integer current = stickyShard.get(stream);
    if (current != null) {
      ShardQueue q = queues.get(new ShardKey(stream, current));
      if (q != null && q.open != null) {
        return current;
      }
    }
    int next = roundRobin.merge(stream, 1, Integer::sum) - 1;
    int shard = shardIds[Math.floorMod(next, shardIds.length)];
    stickyShard.put(stream, shard);
    return shard;
  }

  /** Adds a record to its shard's open batch, closing it (and waking the sender) when it reaches batch size. */
  synchronized void append(String stream, int shard, Record record, int encodedSize,
      CompletableFuture<RecordMetadata> future, long nowNanos) {
    if (closing) {
      future.completeExceptionally(FelixException.clientClosed("the client is closing"));
      return;
    }
    ShardQueue q = queues.computeIfAbsent(new ShardKey(stream, shard), k -> new ShardQueue());
    if (q.open != null && q.open.bytes() + encodedSize > settings.batchSizeBytes()) {
      closeOpen(q);
    }
    if (q.open == null) {
      q.open = new ProduceBatch(stream, shard, nowNanos, settings.deliveryTimeout().toNanos());
      // a new batch brings a new linger deadline: the sender may be asleep until a later one
      notifyAll();
    }
    q.open.add(record, encodedSize, future);
    if (q.open.bytes() >= settings.batchSizeBytes()) {
      closeOpen(q);
    }
  }

  private void closeOpen(ShardQueue q) {
    q.ready.add(q.open);
    q.open = null;
    notifyAll();
  }

  /**
   * Batches to send now, marked in flight: the front of each shard's queue whose retry time has come, while the
   * shard has fewer than maxInFlightBatchesPerShard in flight. An open batch closes when a flush or close is under
   * way, or when its linger is over and the shard could send it now; while the shard is busy it keeps taking
   * records (as Kafka's accumulator does), so a shard waiting for an answer sends one large batch next, not one
   * small batch per linger interval.
   */
  private List<ProduceBatch> drainSendable(long nowNanos) {
    List<ProduceBatch> out = new ArrayList<>();
    long linger = settings.linger().toNanos();
    for (ShardQueue q : queues.values()) {
      if (q.open != null && (flushing > 0 || closing
          || (nowNanos - q.open.createdNanos >= linger && canSendNow(q)))) {
        closeOpen(q);
      }
      while (q.inFlight.size() < settings.maxInFlightBatchesPerShard() && !q.ready.isEmpty()
          && q.ready.peek().retryAtNanos <= nowNanos) {
        ProduceBatch b = q.ready.poll();
        if (settings.idempotence() && !b.hasSequence()) {
          // Numbered at its first send, in send order: the shard's leader then sees the sequences in order.
          b.producerEpoch = q.producerEpoch;
          b.baseSequence = q.nextSequence;
          q.nextSequence = nextSequence(q.nextSequence, b.size());
        }
        q.inFlight.add(b);
        out.add(b);
      }
    }
    return out;
  }

  /** Whether a batch closed now would be sent at once: nothing queued before it and room in flight. */
  private boolean canSendNow(ShardQueue q) {
    return q.ready.isEmpty() && q.inFlight.size() < settings.maxInFlightBatchesPerShard();
  }

  /**
   * When the sender must look again at the latest: the next linger end of a shard that could send, or retry time;
   * Long.MAX_VALUE if none (a busy shard's answer wakes it through {@link #done}).
   */
  private long nextWakeupNanos() {
    long next = Long.MAX_VALUE;
    long linger = settings.linger().toNanos();
    for (ShardQueue q : queues.values()) {
      if (q.open != null && canSendNow(q)) {
        next = Math.min(next, q.open.createdNanos + linger);
      }
      if (!q.ready.isEmpty() && q.inFlight.size() < settings.maxInFlightBatchesPerShard()) {
        next = Math.min(next, q.ready.peek().retryAtNanos);
      }
    }
    return next;
  }

  /**
   * Blocks the sender until there are batches to send, and returns them; returns an empty list only once the
   * client is closing and nothing is left. Draining and waiting happen under one lock, so a wake-up (a batch
   * filled, an answer freed a shard) between them cannot be missed.
   */
  synchronized List<ProduceBatch> awaitSendable() throws InterruptedException {
    while (true) {
      List<ProduceBatch> out = drainSendable(System.nanoTime());
      if (!out.isEmpty() || (closing && isEmpty())) {
        return out;
      }
      long next = nextWakeupNanos();
      if (next == Long.MAX_VALUE) {
        // Nothing pending: every event that creates work notifies, so no timed wake-up is needed.
        wait();
        continue;
      }
      long waitNanos = next - System.nanoTime();
      if (waitNanos > 0) {
        wait(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
      }
    }
  }

  synchronized void done(ProduceBatch batch) {
    queues.get(new ShardKey(batch.stream, batch.shard)).inFlight.remove(batch);
    notifyAll();
  }

  /**
   * Puts a batch that will be retried back in front of its shard's queue, so it goes before later batches; among
   * numbered batches (idempotence, several in flight) in sequence order, so the leader gets them in order again.
   */
  synchronized void retryLater(ProduceBatch batch, long retryAtNanos) {
    ShardQueue q = queues.get(new ShardKey(batch.stream, batch.shard));
    q.inFlight.remove(batch);
    batch.retryAtNanos = retryAtNanos;
    if (!batch.hasSequence()) {
      q.ready.addFirst(batch);
    } else {
      List<ProduceBatch> queued = new ArrayList<>(q.ready);
      int at = 0;
      while (at < queued.size() && queued.get(at).hasSequence()
          && queued.get(at).baseSequence < batch.baseSequence) {
        at++;
      }
      queued.add(at, batch);
      q.ready.clear();
      q.ready.addAll(queued);
    }
    notifyAll();
  }

  /**
   * A numbered batch failed for good (its delivery timeout passed): it may or may not be stored, so the sequences
   * after it would leave a gap for ever. The shard's next batches start a new producer epoch at sequence 0, which
   * the leader accepts whatever it holds (Kafka's epoch bump, KIP-360).
   */
  synchronized void abandonSequence(ProduceBatch batch) {
    ShardQueue q = queues.get(new ShardKey(batch.stream, batch.shard));
    if (batch.hasSequence() && batch.producerEpoch == q.producerEpoch) {
      q.producerEpoch++;
      q.nextSequence = 0;
    }
  }

  /** A send whose answer is awaited, as {@link #awaitedSends} saw it. */
  record AwaitedSend(ProduceBatch batch, ClusterView.Leader sentTo, HostPort address, long sentAtNanos) {}

  /** Records that {@code batch} is being sent to {@code leader} at {@code address}; returns the send's number. */
  synchronized int sending(ProduceBatch batch, ClusterView.Leader leader, HostPort address, long nowNanos) {
    batch.awaitedSend = ++batch.lastSend;
    batch.sentTo = leader;
    batch.sentAddress = address;
    batch.sentAtNanos = nowNanos;
    return batch.lastSend;
  }

  /**
   * Whether the answer to send number {@code send} is the one awaited; true once per send. False for the late
   * answer of a send whose batch has since been re-sent ({@link #resendAwaited}): that answer is ignored.
   */
  synchronized boolean takeAnswer(ProduceBatch batch, int send) {
    if (batch.awaitedSend != send) {
      return false;
    }
    batch.awaitedSend = -1;
    return true;
  }

  /** The numbered batches in flight whose answer is awaited. */
  synchronized List<AwaitedSend> awaitedSends() {
    List<AwaitedSend> out = new ArrayList<>();
    for (ShardQueue q : queues.values()) {
      for (ProduceBatch b : q.inFlight) {
        if (b.awaitedSend >= 0 && b.hasSequence()) {
          out.add(new AwaitedSend(b, b.sentTo, b.sentAddress, b.sentAtNanos));
        }
      }
    }
    return out;
  }

  /**
   * The shard's leader changed while its numbered batches were in flight: every one whose answer is awaited stops
   * waiting (a late answer is ignored) and goes back to the front of the queue in sequence order, to be sent again
   * at once with the same numbers.
   *
   * @return the batches moved
   */
  synchronized List<ProduceBatch> resendAwaited(String stream, int shard, long nowNanos) {
    ShardQueue q = queues.get(new ShardKey(stream, shard));
    List<ProduceBatch> moved = new ArrayList<>();
    if (q == null) {
      return moved;
    }
    for (ProduceBatch b : List.copyOf(q.inFlight)) {
      if (b.awaitedSend >= 0 && b.hasSequence()) {
        b.awaitedSend = -1;
        retryLater(b, nowNanos);
        moved.add(b);
      }
    }
    return moved;
  }

  private static int nextSequence(int sequence, int records) {
    long next = (long) sequence + records;
    return (int) (next > Integer.MAX_VALUE ? next - Integer.MAX_VALUE - 1 : next);
  }

  /** Every record future not yet completed at this moment (open, waiting or in flight). */
  synchronized List<CompletableFuture<RecordMetadata>> pendingFutures() {
    List<CompletableFuture<RecordMetadata>> out = new ArrayList<>();
    for (ShardQueue q : queues.values()) {
      if (q.open != null) {
        out.addAll(q.open.futures());
      }
      q.ready.forEach(b -> out.addAll(b.futures()));
      q.inFlight.forEach(b -> out.addAll(b.futures()));
    }
    return out;
  }

  synchronized void flushStarted() {
    flushing++;
    notifyAll();
  }

  synchronized void flushEnded() {
    flushing--;
  }

  synchronized void closeStarted() {
    closing = true;
    notifyAll();
  }

  synchronized boolean isClosing() {
    return closing;
  }

  synchronized boolean isEmpty() {
    for (ShardQueue q : queues.values()) {
      if (q.open != null || !q.ready.isEmpty() || !q.inFlight.isEmpty()) {
        return false;
      }
    }
    return true;
  }

  /** Removes every batch, in flight or not, for failing them at the end of close. */
  synchronized List<ProduceBatch> abandonAll() {
    List<ProduceBatch> out = abandonUnsent();
    for (ShardQueue q : queues.values()) {
      out.addAll(q.inFlight);
      q.inFlight.clear();
    }
    return out;
  }

  /** Removes every batch not in flight, for failing them at close. */
  synchronized List<ProduceBatch> abandonUnsent() {
    List<ProduceBatch> out = new ArrayList<>();
    for (ShardQueue q : queues.values()) {
      if (q.open != null) {
        out.add(q.open);
        q.open = null;
      }
      out.addAll(q.ready);
      q.ready.clear();
    }
    notifyAll();
    return out;
  }
}
