package io.felix.broker.shard;

import io.felix.protocol.replication.ReplicaFetchResult;

/**
 * The leader side of one follower broker's fetch session (kept by {@code io.felix.broker.replication}): where a shard
 * leader puts its answers for that broker's replica, and how recently that broker asked. Thread-safe.
 */
public interface SessionLink {

  /** Queues a shard's answer for session {@code sessionId}; dropped when that session is no longer the current one. */
  void deliver(long sessionId, ReplicaFetchResult result);

  /**
   * When the follower broker last sent a request in session {@code sessionId} (nanoseconds of the broker's monotonic
   * clock), or {@link Long#MIN_VALUE} when that session is no longer its current one.
   */
  long lastRequestNanos(long sessionId);
}
