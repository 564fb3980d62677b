package io.felix.broker.shard;

import io.felix.broker.log.ProducerStamp;
import io.felix.broker.log.ProducerStates;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import java.time.Duration;

/** Reading an idempotent producer's identity from a produce request, and naming the leader's refusals. */
final class IdempotentProduce {
  /** How often a leader looks for idle producers to forget. */
  static final Duration EXPIRY_CHECK_INTERVAL = Duration.ofMinutes(1);

  private IdempotentProduce() {}

  /**
   * The request's producer stamp, {@link ProducerStamp#NONE} when it carries none.
   *
   * @throws IllegalArgumentException naming the bad field
   */
  static ProducerStamp stampOf(ProduceRequest r) {
    if (!r.getHasProducer()) {
      return ProducerStamp.NONE;
    }
    if (r.getProducerId() < 0) {
      throw new IllegalArgumentException("producer_id must be >= 0, got " + r.getProducerId());
    }
    if (r.getProducerEpoch() < 0) {
      throw new IllegalArgumentException("producer_epoch must be >= 0, got " + r.getProducerEpoch());
    }
    if (r.getBaseSequence() < 0) {
      throw new IllegalArgumentException("base_sequence must be >= 0, got " + r.getBaseSequence());
    }
    return new ProducerStamp(r.getProducerId(), r.getProducerEpoch(), r.getBaseSequence());
  }

  static ErrorCode errorCodeOf(ProducerStates.Verdict verdict) {
    switch (verdict.outcome()) {
      case OUT_OF_ORDER:
        return ErrorCode.OUT_OF_ORDER_SEQUENCE;
      case STALE_EPOCH:
        return ErrorCode.INVALID_PRODUCER_EPOCH;
      default:
        throw new IllegalArgumentException("not a refusal: " + verdict.outcome());
    }
  }
}
