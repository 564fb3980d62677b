package io.felix.broker.replication;

import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.SessionError;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The leader broker's side of one follower broker's fetch session: which session and request it is in, the request
 * parked here (the long poll), and the shard answers waiting to go. No actor, no clock of its own:
 * {@link FollowerSession} drives it, tests drive it with their own times.
 *
 * <p>A request of sequence 0 starts a new session (the follower broker restarted it): what the old one held is
 * dropped, its parked request included. Any other request must be the session's next; one that is not (a request
 * went missing, or the session is unknown here, e.g. after this broker restarted) is answered SESSION_RESET at once
 * and its positions are not used. A request parked before a newer one is answered first, with what is waiting (maybe
 * nothing), so answers go in the order of the requests.
 *
 * <p>A parked request is answered as soon as shard answers wait (their total bounded by fetch-session-max-bytes,
 * at least one; the rest go in the next answer), or after fetch-max-wait with none. Shard answers of an older
 * session are dropped. The session expires when no request came for isr-max-lag-time: its follower broker is gone.
 */
final class SessionOutbox {

  /** What a request leads to: the answers to send now, and whether its positions go to their shards. */
  record Step(List<FetchSessionAnswer> answers, boolean routeEntries, boolean newSession) {}

  private record Parked(long sequence, long sinceNanos) {}

  private final Duration maxWait;
  private final Duration expiry;
  private final int maxAnswerBytes;
  private long sessionId = Long.MIN_VALUE;
  private long lastSequence = -1;
  private Parked parked;
  private final ArrayDeque<ReplicaFetchResult> waiting = new ArrayDeque<>();
  private long lastRequestNanos = Long.MIN_VALUE;

  SessionOutbox(Duration maxWait, Duration expiry, int maxAnswerBytes) {
    this.maxWait = maxWait;
    this.expiry = expiry;
    this.maxAnswerBytes = maxAnswerBytes;
  }

  /** A request of the follower broker arrived at {@code now}. */
  Step onRequest(FetchSessionRequest request, long now) {
    boolean newSession = request.getSequence() == 0;
    if (newSession) {
      sessionId = request.getSessionId();
      parked = null;
      waiting.clear();
    } else if (request.getSessionId() != sessionId || request.getSequence() != lastSequence + 1) {
      return new Step(List.of(FetchSessionAnswer.newBuilder().setSessionId(request.getSessionId())
          .setSequence(request.getSequence()).setError(SessionError.SESSION_RESET).build()), false, false);
    }
    lastSequence = request.getSequence();
    lastRequestNanos = now;
    List<FetchSessionAnswer> answers = new ArrayList<>(1);
    if (parked != null) {
      answers.add(answerParked());
    }
    parked = new Parked(request.getSequence(), now);
    return new Step(answers, true, newSession);
  }

  /** A shard answer for session {@code forSession}; dropped unless that is the current one. */
  void onResult(long forSession, ReplicaFetchResult result) {
    if (forSession == sessionId) {
      waiting.add(result);
    }
  }

  /** The answer to the parked request, if it is due at {@code now}: shard answers wait, or fetch-max-wait passed. */
  Optional<FetchSessionAnswer> answerIfDue(long now) {
    if (parked == null || waiting.isEmpty() && now - parked.sinceNanos() < maxWait.toNanos()) {
      return Optional.empty();
    }
    return Optional.of(answerParked());
  }

  /** The answer to the parked request now, whatever waits (its fetch-max-wait passed). */
  Optional<FetchSessionAnswer> answerNow() {
    return parked == null ? Optional.empty() : Optional.of(answerParked());
  }

  /** The sequence of the parked request, if any (its max-wait timer names it). */
  Optional<Long> parkedSequence() {
    return parked == null ? Optional.empty() : Optional.of(parked.sequence());
  }

  boolean hasWaiting() {
    return !waiting.isEmpty();
  }

  long sessionId() {
    return sessionId;
  }

  /** When the current session's last request came, {@link Long#MIN_VALUE} before any. */
  long lastRequestNanos() {
    return lastRequestNanos;
  }

  /**
   * Whether the session has had no request for isr-max-lag-time at {@code now}; then it is over (the next request
   * must start a new one) and this answers true only once.
   */
  boolean expire(long now) {
    if (sessionId == Long.MIN_VALUE || lastRequestNanos == Long.MIN_VALUE
        || now - lastRequestNanos < expiry.toNanos()) {
      return false;
    }
    sessionId = Long.MIN_VALUE;
    parked = null;
    waiting.clear();
    return true;
  }

  private FetchSessionAnswer answerParked() {
    FetchSessionAnswer.Builder answer = FetchSessionAnswer.newBuilder().setSessionId(sessionId)
        .setSequence(parked.sequence());
    int bytes = 0;
    while (!waiting.isEmpty()) {
      int size = waiting.peek().getSerializedSize() + 8;
      if (bytes > 0 && bytes + size > maxAnswerBytes) {
        break; // the rest goes in the next answer
      }
      bytes += size;
      answer.addResults(waiting.poll());
    }
    parked = null;
    return answer.build();
  }
}
