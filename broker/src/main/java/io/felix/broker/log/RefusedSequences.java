package io.felix.broker.log;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Per broker: the lowest sequence of each idempotent producer's batches this broker answered NOT_LEADER for a shard,
 * kept for {@link #KEPT} so that a later batch of the same producer cannot be stored ahead of it.
 *
 * <p>Why. A shard stores the first batch it sees of a producer it does not know at whatever sequence it starts (its
 * state may have expired, as Kafka's brokers allow since KIP-360). A client keeps several batches of a shard in
 * flight: when the first one reaches the leader while it is still opening its log (answered NOT_LEADER at once, see
 * {@code ShardReplica.refuseProduceWhileBusy}) and the next one once it has opened, the shard stored the second as
 * the producer's first, and the retry of the first was out of order for good (kafka-clients retries it until its
 * delivery timeout: CI, 2026-12-07, a KafkaProducer's batch of a new topic). With the refusal remembered, the later
 * batch is answered OUT_OF_ORDER_SEQUENCE while the producer is unknown to the shard, and the client sends the
 * refused one first ({@link ProducerStates#check}).
 *
 * <p>Bounded: at most {@link #MAX_ENTRIES} producers and shards at once (a refusal beyond that is not remembered);
 * a batch of the producer stored, or {@link #KEPT} after the refusal, forgets it. Thread-safe.
 */
public final class RefusedSequences {
  /** As long as kafka-clients retries a batch by default (delivery.timeout.ms). */
  static final Duration KEPT = Duration.ofMinutes(2);
  static final int MAX_ENTRIES = 100_000;

  /** No refusal remembered. */
  public static final int NONE = -1;

  private record Key(String stream, int shard, long producerId, int producerEpoch) {}

  private record Refusal(int sequence, long atNanos) {}

  private final Map<Key, Refusal> refusals = new ConcurrentHashMap<>();
  private final LongSupplier nanoClock;

  public RefusedSequences(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  /** A batch of {@code producer} for the shard was answered NOT_LEADER (so not stored). */
  public void refused(String stream, int shard, ProducerStamp producer) {
    if (!producer.idempotent()) {
      return;
    }
    long now = nanoClock.getAsLong();
    if (refusals.size() >= MAX_ENTRIES) {
      refusals.values().removeIf(r -> expired(r, now));
      if (refusals.size() >= MAX_ENTRIES) {
        return;
      }
    }
    refusals.merge(key(stream, shard, producer), new Refusal(producer.baseSequence(), now),
        (earlier, later) -> expired(earlier, now) || isAfter(earlier.sequence(), later.sequence()) ? later : earlier);
  }

  /**
   * A batch of {@code producer} for the shard was stored: the shard knows the producer now, and its own sequence
   * checks order the producer's next batches.
   */
  public void stored(String stream, int shard, ProducerStamp producer) {
    if (producer.idempotent() && !refusals.isEmpty()) {
      refusals.remove(key(stream, shard, producer));
    }
  }

  /** The lowest sequence of the producer refused for the shard within {@link #KEPT}, or {@link #NONE}. */
  public int lowestRefused(String stream, int shard, ProducerStamp producer) {
    if (!producer.idempotent() || refusals.isEmpty()) {
      return NONE;
    }
    Refusal r = refusals.get(key(stream, shard, producer));
    return r == null || expired(r, nanoClock.getAsLong()) ? NONE : r.sequence();
  }

  int size() {
    return refusals.size();
  }

  /** Whether sequence {@code a} comes after {@code b}, sequences wrapping at Integer.MAX_VALUE as Kafka's do. */
  static boolean isAfter(int a, int b) {
    long ahead = ((long) a - b + (1L << 31)) % (1L << 31);
    return ahead != 0 && ahead < (1L << 30);
  }

  private boolean expired(Refusal r, long now) {
    return now - r.atNanos() > KEPT.toNanos();
  }

  private static Key key(String stream, int shard, ProducerStamp producer) {
    return new Key(stream, shard, producer.producerId(), producer.producerEpoch());
  }
}
