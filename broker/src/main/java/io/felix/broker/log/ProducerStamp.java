package io.felix.broker.log;

/**
 * The identity an idempotent producer gives a batch (KIP-98): its producer id, the producer's epoch, and the
 * sequence number of the batch's first record in this shard. Stored in the batch header, so every replica (and a
 * replica rebuilding after a restart) knows which batches each producer has written. {@link #NONE} marks a batch
 * of a producer without idempotence, and the leader's epoch markers.
 */
public record ProducerStamp(long producerId, int producerEpoch, int baseSequence) {
  public static final long NO_PRODUCER_ID = -1;
  public static final ProducerStamp NONE = new ProducerStamp(NO_PRODUCER_ID, -1, -1);

  public boolean idempotent() {
    return producerId != NO_PRODUCER_ID;
  }

  /** The sequence number of the last record of a batch of {@code recordCount} records (wrapping as Kafka's do). */
  public int lastSequence(int recordCount) {
    return ProducerSequences.add(baseSequence, recordCount - 1);
  }
}
