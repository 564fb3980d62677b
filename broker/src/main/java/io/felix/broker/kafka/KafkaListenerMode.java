package io.felix.broker.kafka;

import java.util.Locale;

/** How the Kafka listener answers Metadata and where produces go (see felix.kafka-listener.mode). */
public enum KafkaListenerMode {
  /** Metadata names every partition's real leader; clients send each batch there, as to Kafka. */
  DIRECT,
  /**
   * This broker answers Metadata as the leader of every partition and forwards what it does not lead to the leader
   * over the broker-to-broker connection (Felix's plain mode).
   */
  FORWARD;

  static KafkaListenerMode parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("felix.kafka-listener.mode must be direct or forward, got '" + value + "'");
    }
  }
}
