package io.felix.broker.log;

/** Arithmetic on producer sequence numbers, which wrap from Integer.MAX_VALUE to 0 as Kafka's do. */
final class ProducerSequences {
  private ProducerSequences() {}

  static int add(int sequence, int increment) {
    long sum = (long) sequence + increment;
    return (int) (sum > Integer.MAX_VALUE ? sum - Integer.MAX_VALUE - 1 : sum);
  }
}
