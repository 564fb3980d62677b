package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardId;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Fetch sessions that deliver nothing and record, in order, every position a follower replica gives its leader
 * broker's fetcher and every answer a leader replica puts into a follower broker's session.
 */
final class RecordingSessions implements LeaderFetchers {
  /** A position given to the fetcher of {@code broker} (a ReplicaFetch), or an answer for follower {@code broker}. */
  record Sent(int broker, Object message) {}

  /** One follower broker's session as a leader replica sees it; its last request is whenever a test says. */
  final class Session implements SessionLink {
    final int followerBroker;
    volatile long sessionId = 1;
    volatile long lastRequestNanos = Long.MIN_VALUE;

    Session(int followerBroker) {
      this.followerBroker = followerBroker;
    }

    @Override
    public void deliver(long forSession, ReplicaFetchResult result) {
      if (forSession == sessionId) {
        sent.add(new Sent(followerBroker, result));
      }
    }

    @Override
    public long lastRequestNanos(long forSession) {
      return forSession == sessionId ? lastRequestNanos : Long.MIN_VALUE;
    }
  }

  private final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
  private final Map<Integer, Session> sessions = new ConcurrentHashMap<>();
  final List<String> unfollowed = new java.util.concurrent.CopyOnWriteArrayList<>();
  /** What {@link #lastAnswerNanos} says for every leader broker. */
  volatile long leaderAnsweredAtNanos = Long.MIN_VALUE;

  Session session(int followerBroker) {
    return sessions.computeIfAbsent(followerBroker, Session::new);
  }

  @Override
  public void follow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica, ReplicaFetch position) {
    sent.add(new Sent(leaderBroker, position));
  }

  @Override
  public void unfollow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica) {
    unfollowed.add(id + "@" + leaderBroker);
  }

  @Override
  public long lastAnswerNanos(int leaderBroker) {
    return leaderAnsweredAtNanos;
  }

  @Override
  public void brokers(Set<Integer> brokers) {}

  /** The next thing recorded, waiting for it (replicas act on their own threads). */
  Sent next() {
    try {
      Sent s = sent.poll(ReplicaFixture.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(s, "nothing was sent within " + ReplicaFixture.PATIENCE);
      return s;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next thing recorded, which must be an answer for follower broker {@code toBroker}. */
  ReplicaFetchResult nextFetchResult(int toBroker) {
    Sent s = next();
    assertEquals(toBroker, s.broker());
    assertTrue(s.message() instanceof ReplicaFetchResult, () -> "expected a fetch result, got " + s.message());
    return (ReplicaFetchResult) s.message();
  }

  /** The next thing recorded, which must be a position given to the fetcher of leader broker {@code toBroker}. */
  ReplicaFetch nextFetch(int toBroker) {
    Sent s = next();
    assertEquals(toBroker, s.broker());
    assertTrue(s.message() instanceof ReplicaFetch, () -> "expected a position, got " + s.message());
    return (ReplicaFetch) s.message();
  }

  /** Takes everything recorded so far without waiting (call after a round trip to the replica). */
  List<Sent> drain() {
    List<Sent> out = new ArrayList<>();
    sent.drainTo(out);
    return out;
  }
}
