package io.felix.broker.transport;

import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.Map;

/**
 * The broker-to-broker data connection: one TCP connection per broker pair carrying {@link ReplicationFrame}s both
 * ways (the broker with the lower id dials). Delivery is best effort: a frame sent while the connection is down or
 * its queue is full is dropped and {@link #send} says so. Everything above it (fetch sessions that start again when a
 * request or answer is lost, produce timeouts) is built so that no single frame has to arrive.
 *
 * <p>Small on purpose, so that a plain NIO implementation can replace the Pekko Streams one. Thread-safe.
 */
public interface ReplicationTransport extends AutoCloseable {

  /** Receives every frame that arrives, on a transport thread; it must hand work off quickly. */
  @FunctionalInterface
  interface Inbound {
    void onFrame(int fromBroker, ReplicationFrame frame);
  }

  /** The port the replication listener is bound to. */
  int boundPort();

  /** The peers' current addresses (from the latest assignment table); reconnects use the newest address. */
  void updatePeers(Map<Integer, BrokerEndpoint> brokers);

  /** Queues one frame for a peer. @return false when it was dropped (no connection, queue full, closed) */
  boolean send(int toBroker, ReplicationFrame frame);

  /** Whether a connection to the peer is up now (a frame sent may still be dropped). True unless known otherwise. */
  default boolean connected(int broker) {
    return true;
  }

  /**
   * Peers this broker's replication connections give evidence of being lost (closed and not heard from since, or
   * silent to a fetch-session request), in id order: see {@link PeerSuspicion}. None by default (a transport without evidence).
   */
  default java.util.SortedSet<Integer> suspectedPeers() {
    return java.util.Collections.emptySortedSet();
  }

  /** Among {@link #suspectedPeers}, those whose connection closed and stays refused (not merely silent). */
  default java.util.SortedSet<Integer> closedPeers() {
    return java.util.Collections.emptySortedSet();
  }

  /** Frames and bytes sent since start, for metrics and benchmarks. */
  long framesSent();

  long bytesSent();

  @Override
  void close();
}
