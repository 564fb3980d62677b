package io.felix.broker.transport;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * What the replication connection says about each peer broker: evidence of its loss that comes long before the
 * cluster's failure detector (which needs several missed heartbeats). Every broker keeps a fetch session with every
 * other, whose requests a live broker answers within fetch-max-wait (with nothing, when it has nothing), whatever
 * shards they share; a peer is suspected when
 * <ul>
 *   <li>its connection ended and nothing has been heard from it for {@code closeGrace} since (a killed process's
 *       kernel closes the socket at once, and the reconnects are refused; a live peer is heard again within a
 *       reconnect backoff), or</li>
 *   <li>a fetch-session request was sent to it {@code silenceTimeout} ago and nothing at all has been heard from it since (a
 *       stopped process, a cut network: the socket stays open but silent).</li>
 * </ul>
 * Any frame from the peer clears the suspicion. A peer never heard from and never connected is not suspected:
 * there is no evidence either way. This is evidence only; the placement singleton decides what it is worth.
 *
 * <p>Thread-safe (the transport's stream threads record, a reporter reads); the time comes from {@code millis}.
 */
public final class PeerSuspicion {

  /** What is known about one peer; times in the clock's milliseconds, -1 for never. */
  private static final class Peer {
    long lastHeard = -1;
    long endedAt = -1;
    /** The first request sent after the last frame heard: the answer it waits for is overdue after the timeout. */
    long awaitingSince = -1;
  }

  private final Duration closeGrace;
  private final Duration silenceTimeout;
  private final LongSupplier millis;
  private final Map<Integer, Peer> peers = new HashMap<>();

  public PeerSuspicion(Duration closeGrace, Duration silenceTimeout, LongSupplier millis) {
    this.closeGrace = closeGrace;
    this.silenceTimeout = silenceTimeout;
    this.millis = millis;
  }

  /** A frame arrived from the peer: it is alive. */
  public synchronized void heard(int peer) {
    Peer p = peer(peer);
    p.lastHeard = millis.getAsLong();
    p.endedAt = -1;
    p.awaitingSince = -1;
  }

  /** A request that the peer answers (a fetch-session request) was sent to it. */
  public synchronized void requested(int peer) {
    Peer p = peer(peer);
    if (p.awaitingSince < 0) {
      p.awaitingSince = millis.getAsLong();
    }
  }

  /** The connection to the peer ended (closed, failed, or a dial was refused). */
  public synchronized void ended(int peer) {
    Peer p = peer(peer);
    if (p.endedAt < 0) {
      p.endedAt = millis.getAsLong();
    }
  }

  /** The peers suspected now, in id order. */
  public synchronized SortedSet<Integer> suspected() {
    long now = millis.getAsLong();
    SortedSet<Integer> suspected = new TreeSet<>();
    peers.forEach((id, p) -> {
      if (closed(p, now) || p.awaitingSince >= 0 && now - p.awaitingSince >= silenceTimeout.toMillis()) {
        suspected.add(id);
      }
    });
    return suspected;
  }

  /**
   * The peers suspected because their connection ended and stays unanswered (not merely silent), in id order: the
   * stronger evidence, that no process listens at the peer's address any more.
   */
  public synchronized SortedSet<Integer> closed() {
    long now = millis.getAsLong();
    SortedSet<Integer> closed = new TreeSet<>();
    peers.forEach((id, p) -> {
      if (closed(p, now)) {
        closed.add(id);
      }
    });
    return closed;
  }

  private boolean closed(Peer p, long now) {
    return p.endedAt >= 0 && now - p.endedAt >= closeGrace.toMillis();
  }

  private Peer peer(int id) {
    return peers.computeIfAbsent(id, i -> new Peer());
  }
}
