package io.felix.broker.client;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where this broker gets the producer ids it hands to idempotent producers (InitProducerId): in a broker, the
 * {@code ProducerIdIssuer} and the blocks the placement singleton allocates. Each id is handed out once.
 */
@FunctionalInterface
public interface ProducerIdSource {
  /** The next id; fails when none can be had now (the singleton did not answer), a retriable condition. */
  CompletionStage<Long> nextProducerId();

  /** Until the broker wires its issuer (and on a data plane without a control plane): no ids. */
  ProducerIdSource NONE = () -> CompletableFuture.failedFuture(
      new IllegalStateException("this broker has no producer id allocator yet (its control plane is not started)"));

  /**
   * Ids from a counter shared by data planes started alone in one JVM (tests, benchmarks: no control plane); unique
   * among the planes that share it, and only for the life of the JVM.
   */
  static ProducerIdSource sharedCounter(AtomicLong next) {
    return () -> CompletableFuture.completedFuture(next.getAndIncrement());
  }
}
