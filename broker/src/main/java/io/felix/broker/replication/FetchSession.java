package io.felix.broker.replication;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ShardRefs;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.SessionError;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The follower broker's side of its fetch session with one leader broker (Kafka's replica fetcher with KIP-227
 * incremental fetch sessions): the position of every shard it follows there, which of them changed since the last
 * request, and the requests out. No actor, no clock of its own: {@link LeaderFetcher} drives it, tests drive it with
 * their own times.
 *
 * <p>Requests: the first of a session (sequence 0) carries every followed shard (over several requests when they do
 * not fit in one); each later one carries only the shards whose position changed since (a changed fetch id, log end
 * or stored offset), so an idle shard is in none. One request waits at the leader (the long poll) while nothing
 * changes; a change goes at once in a second request, which makes the leader answer the first (acks must not wait
 * for the long poll). At most {@link #MAX_OUTSTANDING} requests are out.
 *
 * <p>Healing: answers come back in the order of the requests. An answer that skips one (it was lost), an answer
 * saying the leader does not know the session (SESSION_RESET), and a request unanswered for fetch-timeout (lost on
 * the way, or its answer was) each start a new session, which carries every position again; nothing is repaired
 * per shard. Answers of an older session are dropped whole.
 *
 * <p>Shard answers go to the replica that follows the shard. Those that only need time (the leader is not serving
 * the shard yet, or another incarnation leads it) make the shard's position go again after {@link #RETRY}.
 *
 * @param <R> the handle of a follower replica (its actor)
 */
final class FetchSession<R> {
  /** Requests out at once: the parked long poll and one carrying news. */
  static final int MAX_OUTSTANDING = 2;
  /** How long a shard whose leader is not serving waits before its position goes again. */
  static final Duration RETRY = Duration.ofMillis(100);

  /** A shard answer for a replica. */
  record Delivery<R>(R replica, ReplicaFetchResult result) {}

  /** What an answer led to. */
  sealed interface Outcome<R> permits Delivered, Restart, Dropped {}

  /** The answer was this session's next: its shard answers go to these replicas. */
  record Delivered<R>(List<Delivery<R>> deliveries) implements Outcome<R> {}

  /** The session cannot go on (see {@link #restart}); the reason is for the log. */
  record Restart<R>(String reason) implements Outcome<R> {}

  /** An answer of an older session, or one already had: nothing to do. */
  record Dropped<R>() implements Outcome<R> {}

  private record Position<R>(R replica, ReplicaFetch entry) {}

  private record Sent(long sequence, long atNanos) {}

  private final Duration fetchTimeout;
  private final int maxRequestBytes;
  private final Map<ShardId, Position<R>> positions = new LinkedHashMap<>();
  /** Shards whose position has not gone in a request since it changed, in the order they changed. */
  private final Set<ShardId> changed = new LinkedHashSet<>();
  private final Map<ShardId, Long> retryAtNanos = new HashMap<>();
  private final ArrayDeque<Sent> outstanding = new ArrayDeque<>();
  private long sessionId;
  private long nextSequence;
  private long sessions = 1;

  /**
   * @param firstSessionId this session's id; each restart takes the next one
   * @param maxRequestBytes how large a request may grow (positions beyond it go in the next one)
   */
  FetchSession(long firstSessionId, Duration fetchTimeout, int maxRequestBytes) {
    this.sessionId = firstSessionId;
    this.fetchTimeout = fetchTimeout;
    this.maxRequestBytes = maxRequestBytes;
  }

  /** The position of {@code id}'s log (see {@link io.felix.broker.shard.LeaderFetchers#follow}). */
  void follow(ShardId id, R replica, ReplicaFetch position) {
    Position<R> before = positions.put(id, new Position<>(replica, position));
    if (before == null || !before.entry().equals(position)) {
      changed.add(id);
      retryAtNanos.remove(id);
    }
  }

  /** {@code replica} no longer follows {@code id} here (ignored when another replica of it does). */
  void unfollow(ShardId id, R replica) {
    Position<R> p = positions.get(id);
    if (p != null && p.replica().equals(replica)) {
      positions.remove(id);
      changed.remove(id);
      retryAtNanos.remove(id);
    }
  }

  int followed() {
    return positions.size();
  }

  long sessionId() {
    return sessionId;
  }

  /** How many sessions this fetcher has had (1 for the first; every restart adds one). */
  long sessions() {
    return sessions;
  }

  /**
   * The request to send now, if one may go: when none is out (the long poll, possibly with no position at all), or
   * when positions changed and fewer than {@link #MAX_OUTSTANDING} are out. It counts as sent at {@code now}.
   */
  Optional<FetchSessionRequest> nextRequest(long now) {
    if (!outstanding.isEmpty() && (changed.isEmpty() || outstanding.size() >= MAX_OUTSTANDING)) {
      return Optional.empty();
    }
    FetchSessionRequest.Builder request = FetchSessionRequest.newBuilder().setSessionId(sessionId)
        .setSequence(nextSequence);
    int bytes = 0;
    for (Iterator<ShardId> it = changed.iterator(); it.hasNext(); ) {
      ReplicaFetch entry = positions.get(it.next()).entry();
      int size = entry.getSerializedSize() + 8;
      if (bytes > 0 && bytes + size > maxRequestBytes) {
        break; // the rest goes in the next request
      }
      bytes += size;
      request.addEntries(entry);
      it.remove();
    }
    outstanding.add(new Sent(nextSequence, now));
    nextSequence++;
    return Optional.of(request.build());
  }

  /** An answer arrived at {@code now}. */
  Outcome<R> onAnswer(FetchSessionAnswer answer, long now) {
    if (answer.getSessionId() != sessionId || outstanding.isEmpty()
        || answer.getSequence() < outstanding.peek().sequence()) {
      return new Dropped<>();
    }
    if (answer.getSequence() > outstanding.peek().sequence()) {
      return new Restart<>("the answer to request " + outstanding.peek().sequence() + " never came");
    }
    outstanding.poll();
    if (answer.getError() == SessionError.SESSION_RESET) {
      return new Restart<>("the leader broker did not know session " + sessionId + " or missed a request of it");
    }
    List<Delivery<R>> deliveries = new ArrayList<>(answer.getResultsCount());
    for (ReplicaFetchResult result : answer.getResultsList()) {
      ShardId id;
      try {
        id = ShardRefs.toId(result.getShard());
      } catch (IllegalArgumentException e) {
        continue; // not a shard this broker could follow
      }
      Position<R> p = positions.get(id);
      if (p == null) {
        continue; // no longer followed here
      }
      deliveries.add(new Delivery<>(p.replica(), result));
      if (waitsForLeader(result.getError()) && result.getFetchId() == p.entry().getFetchId()) {
        retryAtNanos.put(id, now + RETRY.toNanos());
      }
    }
    return new Delivered<>(deliveries);
  }

  /**
   * Time passed: positions whose retry is due go in the next request; returns why the session must restart when
   * its oldest request has gone unanswered for fetch-timeout.
   */
  Optional<String> onTick(long now) {
    for (Iterator<Map.Entry<ShardId, Long>> it = retryAtNanos.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<ShardId, Long> e = it.next();
      if (now - e.getValue() >= 0) {
        it.remove();
        if (positions.containsKey(e.getKey())) {
          changed.add(e.getKey());
        }
      }
    }
    Sent oldest = outstanding.peek();
    if (oldest != null && now - oldest.atNanos() >= fetchTimeout.toNanos()) {
      return Optional.of("request " + oldest.sequence() + " had no answer within " + fetchTimeout.toMillis() + " ms");
    }
    return Optional.empty();
  }

  /** Whether positions wait to go (changed, or the first of a session). */
  boolean hasChanges() {
    return !changed.isEmpty();
  }

  /** Starts a new session: the next request is its first and every position goes again. */
  void restart() {
    sessionId++;
    sessions++;
    nextSequence = 0;
    outstanding.clear();
    retryAtNanos.clear();
    changed.clear();
    changed.addAll(positions.keySet());
  }

  /** The errors after which a position goes again unchanged: the leader is not there yet (or another one leads). */
  private static boolean waitsForLeader(FetchError error) {
    return error == FetchError.FETCH_EPOCH_MISMATCH || error == FetchError.FETCH_NOT_LEADER
        || error == FetchError.FETCH_REPLICA_FAILED || error == FetchError.FETCH_INCARNATION_MISMATCH;
  }
}
