package io.felix.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What one shard replica knows of its idempotent producers (KIP-98): per producer id, its epoch, the sequence
 * numbers and offsets of its last {@value #BATCHES_KEPT} batches in this log, and when its last batch came.
 * Kept up to date by {@link ShardLog} for every batch it stores (as leader or follower), so a replica that becomes
 * leader already knows every producer its log holds; {@link ProducerSnapshot} saves it at each segment roll. After
 * an open or a truncation it is loaded from the newest snapshot and the batches after it when first needed (a
 * check, an append), not by the open itself.
 *
 * <p>The leader asks {@link #check} before appending a producer's batch: one it holds among the last batches is a
 * duplicate (answered with its original offsets), one that does not continue the last sequence is out of order.
 *
 * <p>Across a change of leader five are not enough. kafka-clients bounds its requests in flight per connection, not
 * per partition: while a partition's five batches wait at a leader that was fenced (their answers held back by the
 * other partitions of their requests), the client may send the partition's next batches to the new leader, which
 * holds the five and appends the next ones after them; its retries of the five must still be duplicates there. So
 * each producer also keeps the last {@value #BATCHES_KEPT} batches stored before the leader epoch of its latest
 * batch began ({@code beforeLeaderChange}), which every replica derives from the batches' leader epochs (in memory
 * only: after a load from a snapshot the next batch keeps the batches loaded). Kafka's broker keeps five in all and
 * answers such a retry OUT_OF_ORDER_SEQUENCE_NUMBER, which kafka-clients retries without end once a later sequence
 * of the partition was acknowledged.
 *
 * <p>Owned by the log's owner thread; not thread-safe.
 */
public final class ProducerStates {
  /**
   * As Kafka: a producer has at most five batches in flight per shard at one leader, so five cover every retry it
   * can send while the leader stays (the batches of the previous leadership are kept too: see above).
   */
  public static final int BATCHES_KEPT = 5;

  /** One stored batch of a producer: its sequence range and where it lies in the log. */
  record StoredBatch(int firstSequence, int lastSequence, long baseOffset, int recordCount) {}

  /** One producer's state in this shard. */
  static final class Entry {
    final long producerId;
    int epoch;
    long lastTimestamp;
    final ArrayDeque<StoredBatch> batches = new ArrayDeque<>(BATCHES_KEPT);
    /** The leader epoch of the latest batch, -1 when not known (the entry was read from a snapshot). */
    long leaderEpoch = -1;
    /** The last batches stored before {@link #leaderEpoch} began (their retries may still come), oldest first. */
    List<StoredBatch> beforeLeaderChange = List.of();

    Entry(long producerId, int epoch, long lastTimestamp) {
      this.producerId = producerId;
      this.epoch = epoch;
      this.lastTimestamp = lastTimestamp;
    }

    int lastSequence() {
      return batches.isEmpty() ? -1 : batches.peekLast().lastSequence();
    }
  }

  public enum Outcome {
    /** New to this shard's log: append it. */
    APPEND,
    /** Already stored: answer with {@link Verdict#baseOffset()} once that batch is acknowledged. */
    DUPLICATE,
    /** Its first sequence does not follow the producer's last stored batch (a gap, or older than remembered). */
    OUT_OF_ORDER,
    /** Its producer epoch is older than the one stored for the producer. */
    STALE_EPOCH
  }

  /** @param baseOffset for a duplicate, its original base offset; else -1 */
  public record Verdict(Outcome outcome, long baseOffset, String problem) {
    static final Verdict APPEND = new Verdict(Outcome.APPEND, -1, "");
  }

  private final Map<Long, Entry> producers = new HashMap<>();
  private final LongSupplier clock;
  /** Rebuilds this state from the log when it is first needed; null once loaded (see {@link #loadLazily}). */
  private Loader loader;

  /** Fills a {@link ProducerStates} from the log (the newest snapshot and the batches after it). */
  interface Loader {
    void load(ProducerStates into) throws IOException;
  }

  /**
   * @param clock wall-clock milliseconds: a producer's last activity is when this replica learnt of its last
   *     batch (appended, replicated or read on open), not the batch's timestamp, which is the producer's to set
   *     (records without one, or from a skewed clock, must not make a producer expire at once)
   */
  public ProducerStates(LongSupplier clock) {
    this.clock = clock;
  }

  /** Whether the batch {@code producer} wants to append with {@code recordCount} records is new, a duplicate or bad. */
  public Verdict check(ProducerStamp producer, int recordCount) {
    return check(producer, recordCount, RefusedSequences.NONE);
  }

  /**
   * As {@link #check(ProducerStamp, int)}, for a broker that refused (NOT_LEADER) a batch of the producer at
   * {@code lowestRefused} ({@link RefusedSequences}): while the producer is unknown here, a later sequence must wait
   * for that one.
   */
  public Verdict check(ProducerStamp producer, int recordCount, int lowestRefused) {
    ensureLoaded();
    Entry e = producers.get(producer.producerId());
    if (e == null) {
      if (lowestRefused != RefusedSequences.NONE && RefusedSequences.isAfter(producer.baseSequence(), lowestRefused)) {
        return new Verdict(Outcome.OUT_OF_ORDER, -1, "producer " + producer.producerId() + " (epoch "
            + producer.producerEpoch() + ") is new to this shard and sent sequence " + producer.baseSequence()
            + " before sequence " + lowestRefused + ", which this broker refused while it did not lead yet; that"
            + " batch must come first");
      }
      // Unknown here (a new producer, or one whose state expired): any sequence starts it, as after KIP-360.
      return Verdict.APPEND;
    }
    if (producer.producerEpoch() < e.epoch) {
      return new Verdict(Outcome.STALE_EPOCH, -1, "producer " + producer.producerId() + " sent epoch "
          + producer.producerEpoch() + " but this shard has stored epoch " + e.epoch);
    }
    if (producer.producerEpoch() > e.epoch) {
      return producer.baseSequence() == 0 ? Verdict.APPEND : new Verdict(Outcome.OUT_OF_ORDER, -1, "producer "
          + producer.producerId() + " starts epoch " + producer.producerEpoch() + " at sequence "
          + producer.baseSequence() + "; a new epoch starts at 0");
    }
    int last = producer.lastSequence(recordCount);
    for (StoredBatch b : e.batches) {
      if (b.firstSequence() == producer.baseSequence() && b.lastSequence() == last) {
        return new Verdict(Outcome.DUPLICATE, b.baseOffset(), "");
      }
    }
    for (StoredBatch b : e.beforeLeaderChange) {
      if (b.firstSequence() == producer.baseSequence() && b.lastSequence() == last) {
        return new Verdict(Outcome.DUPLICATE, b.baseOffset(), "");
      }
    }
    int expected = ProducerSequences.add(e.lastSequence(), 1);
    if (producer.baseSequence() == expected) {
      return Verdict.APPEND;
    }
    return new Verdict(Outcome.OUT_OF_ORDER, -1, "producer " + producer.producerId() + " (epoch " + e.epoch
        + ") sent sequence " + producer.baseSequence() + "; this shard expects " + expected
        + (isOlder(producer.baseSequence(), e) ? " (the batch is older than the last " + BATCHES_KEPT
        + " batches it remembers)" : " (a gap: earlier batches have not arrived)"));
  }

  private static boolean isOlder(int sequence, Entry e) {
    StoredBatch oldest = e.batches.peekFirst();
    return oldest != null && sequence < oldest.firstSequence() && oldest.firstSequence() - sequence < (1 << 30);
  }

  /** Records a batch stored in the log (any producer batch: the leader's, a replicated one, one read on open). */
  void onBatch(LogBatch batch) {
    if (batch.producer().idempotent()) {
      onBatch(batch.producer(), batch.baseOffset(), batch.recordCount(), batch.leaderEpoch());
    }
  }

  /** @param leaderEpoch the leader epoch the batch was stored under */
  void onBatch(ProducerStamp producer, long baseOffset, int recordCount, long leaderEpoch) {
    ensureLoaded();
    long timestamp = clock.getAsLong();
    Entry e = producers.computeIfAbsent(producer.producerId(),
        id -> new Entry(id, producer.producerEpoch(), timestamp));
    if (producer.producerEpoch() != e.epoch) {
      e.epoch = producer.producerEpoch();
      e.batches.clear();
      e.beforeLeaderChange = List.of();
    }
    if (leaderEpoch != e.leaderEpoch) {
      // The producer's first batch under this leadership: the batches before it may be in flight still.
      if (!e.batches.isEmpty()) {
        e.beforeLeaderChange = List.copyOf(e.batches);
      }
      e.leaderEpoch = leaderEpoch;
    }
    e.lastTimestamp = Math.max(e.lastTimestamp, timestamp);
    if (e.batches.size() == BATCHES_KEPT) {
      e.batches.pollFirst();
    }
    e.batches.addLast(new StoredBatch(producer.baseSequence(), producer.lastSequence(recordCount), baseOffset,
        recordCount));
  }

  /**
   * Forgets producers whose last batch came more than {@code idleMillis} before {@code nowMillis}: a producer idle that
   * long starts afresh (its next batch is accepted whatever its sequence), and the table does not grow forever.
   *
   * @return the number of producers forgotten
   */
  public int expireIdle(long nowMillis, long idleMillis) {
    if (loader != null) {
      return 0; // not loaded yet: what it would load is checked at the next expiry round after
    }
    int before = producers.size();
    producers.values().removeIf(e -> nowMillis - e.lastTimestamp > idleMillis);
    return before - producers.size();
  }

  public int size() {
    ensureLoaded();
    return producers.size();
  }

  /**
   * Empties the state and has {@code load} fill it when it is first needed (a check, an append, a snapshot), so
   * that opening a log does not read the batches after its newest snapshot. Owner thread only, as every method.
   */
  void loadLazily(Loader load) {
    producers.clear();
    loader = load;
  }

  /**
   * Loads the state now if it is not; the log calls this before it writes a batch, so the load reads the log as it
   * was before the batch.
   *
   * @throws UncheckedIOException if the log cannot be read
   */
  void ensureLoaded() {
    Loader load = loader;
    if (load == null) {
      return;
    }
    loader = null; // the load itself adds batches
    try {
      load.load(this);
    } catch (IOException e) {
      producers.clear();
      loader = load;
      throw new UncheckedIOException("the idempotent producers' state could not be read from the log", e);
    }
  }

  void clear() {
    producers.clear();
    loader = null;
  }

  Collection<Entry> entries() {
    ensureLoaded();
    return producers.values();
  }

  void put(Entry e) {
    producers.put(e.producerId, e);
  }

  /** The last batches stored for one producer, oldest first (for tests and diagnostics). */
  List<StoredBatch> batchesOf(long producerId) {
    ensureLoaded();
    Entry e = producers.get(producerId);
    return e == null ? List.of() : new ArrayList<>(e.batches);
  }
}
