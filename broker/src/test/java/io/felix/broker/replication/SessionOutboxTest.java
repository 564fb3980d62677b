package io.felix.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ShardRefs;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.SessionError;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The leader broker's side of one follower broker's fetch session, driven by hand with its own times. */
class SessionOutboxTest {
  static final Duration MAX_WAIT = Duration.ofMillis(250);
  static final Duration EXPIRY = Duration.ofSeconds(5);
  static final ShardId A = new ShardId("orders", 0);

  long now = 1_000_000_000L;
  final SessionOutbox outbox = new SessionOutbox(MAX_WAIT, EXPIRY, 1000);

  static FetchSessionRequest request(long session, long sequence) {
    return FetchSessionRequest.newBuilder().setSessionId(session).setSequence(sequence).build();
  }

  static ReplicaFetchResult result(long offset, int bytes) {
    return ReplicaFetchResult.newBuilder().setShard(ShardRefs.toRef(A)).setLeaderEpoch(3).setFetchId(1)
        .setFetchOffset(offset).setBatches(ByteString.copyFrom(new byte[bytes])).build();
  }

  @Test
  void aParkedRequestIsAnsweredWhenAShardAnswerComesOrEmptyOnceTheMaxWaitPassed() {
    SessionOutbox.Step first = outbox.onRequest(request(9, 0), now);
    assertTrue(first.newSession());
    assertTrue(first.routeEntries());
    assertEquals(List.of(), first.answers());
    assertEquals(Optional.empty(), outbox.answerIfDue(now + MAX_WAIT.toNanos() - 1));
    FetchSessionAnswer empty = outbox.answerIfDue(now + MAX_WAIT.toNanos()).orElseThrow();
    assertEquals(9, empty.getSessionId());
    assertEquals(0, empty.getSequence());
    assertEquals(0, empty.getResultsCount());

    outbox.onRequest(request(9, 1), now);
    outbox.onResult(9, result(0, 10));
    FetchSessionAnswer pushed = outbox.answerIfDue(now).orElseThrow();
    assertEquals(1, pushed.getSequence());
    assertEquals(List.of(result(0, 10)), pushed.getResultsList());
    assertEquals(Optional.empty(), outbox.answerIfDue(now + MAX_WAIT.toNanos()), "answered: nothing parked");
  }

  @Test
  void aNewerRequestAnswersTheParkedOneFirstWithWhatWaits() {
    outbox.onRequest(request(9, 0), now);
    outbox.onResult(9, result(0, 10));
    SessionOutbox.Step second = outbox.onRequest(request(9, 1), now + 5);
    assertEquals(1, second.answers().size());
    assertEquals(0, second.answers().get(0).getSequence());
    assertEquals(1, second.answers().get(0).getResultsCount());
    assertEquals(Optional.of(1L), outbox.parkedSequence());
  }

  @Test
  void answersAreBoundedByBytesAndTheRestGoesInTheNextAnswer() {
    outbox.onRequest(request(9, 0), now);
    outbox.onResult(9, result(0, 600));
    outbox.onResult(9, result(600, 600));
    FetchSessionAnswer first = outbox.answerIfDue(now).orElseThrow();
    assertEquals(1, first.getResultsCount(), "two do not fit in 1000 bytes; one always goes");
    outbox.onRequest(request(9, 1), now);
    FetchSessionAnswer second = outbox.answerIfDue(now).orElseThrow();
    assertEquals(600, second.getResults(0).getFetchOffset());
  }

  @Test
  void aRequestOutOfSequenceOrOfAnUnknownSessionIsAnsweredResetAndNotRouted() {
    SessionOutbox.Step unknown = outbox.onRequest(request(9, 4), now);
    assertFalse(unknown.routeEntries());
    assertEquals(SessionError.SESSION_RESET, unknown.answers().get(0).getError());
    assertEquals(4, unknown.answers().get(0).getSequence());

    outbox.onRequest(request(9, 0), now);
    SessionOutbox.Step gap = outbox.onRequest(request(9, 2), now); // request 1 went missing
    assertFalse(gap.routeEntries());
    assertEquals(SessionError.SESSION_RESET, gap.answers().get(0).getError());
  }

  @Test
  void aNewSessionDropsTheOldOnesParkedRequestAndItsLateShardAnswers() {
    outbox.onRequest(request(9, 0), now);
    outbox.onResult(9, result(0, 10));
    SessionOutbox.Step fresh = outbox.onRequest(request(10, 0), now);
    assertTrue(fresh.newSession());
    assertEquals(List.of(), fresh.answers(), "the old session's follower no longer waits for it");
    outbox.onResult(9, result(10, 10)); // a shard leader answering the old session
    assertFalse(outbox.hasWaiting());
    outbox.onResult(10, result(0, 10));
    assertEquals(10, outbox.answerIfDue(now).orElseThrow().getSessionId());
  }

  @Test
  void theSessionExpiresOnceNoRequestCameForTheExpiryAndOnlyOnce() {
    outbox.onRequest(request(9, 0), now);
    assertEquals(now, outbox.lastRequestNanos());
    assertFalse(outbox.expire(now + EXPIRY.toNanos() - 1));
    assertTrue(outbox.expire(now + EXPIRY.toNanos()));
    assertFalse(outbox.expire(now + EXPIRY.toNanos() + 1));
    assertFalse(outbox.onRequest(request(9, 1), now).routeEntries(), "its next request must start a new session");
  }
}
