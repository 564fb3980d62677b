package io.felix.broker.kafka;

import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import org.apache.kafka.common.protocol.Errors;

/** Felix's error codes as Kafka's: the one mapping, so a Kafka client retries exactly what a Felix client would. */
final class KafkaErrors {
  private KafkaErrors() {}

  /** The Kafka error of a Felix answer ({@link Errors#NONE} when it carries none). */
  static Errors of(Response response) {
    return response.hasError() ? of(response.getError().getCode(), response.getError().getNotAppended()) : Errors.NONE;
  }

  /**
   * @param notAppended whether the leader guarantees the batch was not appended: a timeout after the append is
   *     Kafka's NOT_ENOUGH_REPLICAS_AFTER_APPEND, before it NOT_ENOUGH_REPLICAS (both retriable; an idempotent
   *     producer's retry is then answered as a duplicate, with the original offset)
   */
  static Errors of(ErrorCode code, boolean notAppended) {
    return switch (code) {
      case NONE -> Errors.NONE;
      case NOT_LEADER -> Errors.NOT_LEADER_OR_FOLLOWER;
      case UNKNOWN_STREAM, UNKNOWN_SHARD, UNKNOWN_CACHE -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
      case OFFSET_OUT_OF_RANGE -> Errors.OFFSET_OUT_OF_RANGE;
      case NOT_ENOUGH_REPLICAS -> notAppended ? Errors.NOT_ENOUGH_REPLICAS : Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
      case TIMEOUT -> Errors.REQUEST_TIMED_OUT;
      case INVALID_REQUEST -> Errors.INVALID_REQUEST;
      case FRAME_TOO_LARGE, ENTRY_TOO_LARGE -> Errors.MESSAGE_TOO_LARGE;
      case RESOURCE_LIMIT -> Errors.POLICY_VIOLATION;
      case OUT_OF_ORDER_SEQUENCE -> Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
      case INVALID_PRODUCER_EPOCH -> Errors.INVALID_PRODUCER_EPOCH;
      case NOT_COORDINATOR -> Errors.NOT_COORDINATOR;
      case UNKNOWN_MEMBER -> Errors.UNKNOWN_MEMBER_ID;
      case ILLEGAL_GENERATION -> Errors.ILLEGAL_GENERATION;
      case REBALANCE_IN_PROGRESS -> Errors.REBALANCE_IN_PROGRESS;
      case AUTHENTICATION_FAILED -> Errors.SASL_AUTHENTICATION_FAILED;
      case AUTHORIZATION_FAILED -> Errors.TOPIC_AUTHORIZATION_FAILED;
      case UNRECOGNIZED -> Errors.UNKNOWN_SERVER_ERROR;
    };
  }

  /** The Felix answer's message, or null when it carries none (Kafka's error_message is nullable). */
  static String message(Response response) {
    return response.hasError() && !response.getError().getMessage().isEmpty() ? response.getError().getMessage()
        : null;
  }
}
