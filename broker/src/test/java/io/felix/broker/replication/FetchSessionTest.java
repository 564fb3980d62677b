package io.felix.broker.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ShardRefs;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.SessionError;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The follower broker's side of a fetch session, driven by hand with its own times (replicas are names). */
class FetchSessionTest {
  static final Duration TIMEOUT = Duration.ofMillis(1500);
  static final ShardId A = new ShardId("orders", 0);
  static final ShardId B = new ShardId("orders", 1);
  static final ShardId C = new ShardId("orders", 2);

  long now = 1_000_000_000L;
  final FetchSession<String> session = new FetchSession<>(40, TIMEOUT, 1 << 20);

  static ReplicaFetch position(ShardId id, long epoch, long fetchId, long offset, long stored) {
    return ReplicaFetch.newBuilder().setShard(ShardRefs.toRef(id)).setLeaderEpoch(epoch).setFollowerId(2)
        .setFetchOffset(offset).setLastFetchedEpoch(epoch).setDurableOffset(stored).setFetchId(fetchId).build();
  }

  static ReplicaFetchResult result(ShardId id, long epoch, long fetchId, long offset) {
    return ReplicaFetchResult.newBuilder().setShard(ShardRefs.toRef(id)).setLeaderEpoch(epoch).setFetchId(fetchId)
        .setFetchOffset(offset).build();
  }

  FetchSessionRequest send() {
    Optional<FetchSessionRequest> r = session.nextRequest(now);
    assertTrue(r.isPresent(), "a request may go");
    return r.get();
  }

  static FetchSessionAnswer answer(FetchSessionRequest to, ReplicaFetchResult... results) {
    return FetchSessionAnswer.newBuilder().setSessionId(to.getSessionId()).setSequence(to.getSequence())
        .addAllResults(List.of(results)).build();
  }

  static List<ShardId> shards(FetchSessionRequest r) {
    return r.getEntriesList().stream().map(e -> ShardRefs.toId(e.getShard())).toList();
  }

  @Test
  void theFirstRequestCarriesEveryShardAndLaterOnesOnlyThoseWhosePositionChanged() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    session.follow(B, "b", position(B, 3, 1, 20, 20));
    FetchSessionRequest first = send();
    assertEquals(40, first.getSessionId());
    assertEquals(0, first.getSequence());
    assertEquals(List.of(A, B), shards(first));
    assertEquals(Optional.empty(), session.nextRequest(now), "nothing changed: the first request waits alone");

    session.onAnswer(answer(first), now);
    FetchSessionRequest poll = send(); // the long poll: no position at all
    assertEquals(1, poll.getSequence());
    assertEquals(List.of(), shards(poll));

    session.follow(B, "b", position(B, 3, 1, 20, 20)); // the same position again: nothing new
    assertEquals(Optional.empty(), session.nextRequest(now));
    session.follow(B, "b", position(B, 3, 1, 25, 20)); // B appended: goes at once, beside the parked poll
    FetchSessionRequest news = send();
    assertEquals(2, news.getSequence());
    assertEquals(List.of(B), shards(news));
    assertEquals(25, news.getEntries(0).getFetchOffset());
    session.follow(A, "a", position(A, 3, 1, 11, 10));
    assertEquals(Optional.empty(), session.nextRequest(now), "two requests out: the change waits for an answer");
    session.onAnswer(answer(poll), now);
    assertEquals(List.of(A), shards(send()));
  }

  @Test
  void shardAnswersGoToTheirReplicasAndAnswersOfAnOlderSessionAreDropped() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    session.follow(B, "b", position(B, 3, 1, 20, 20));
    FetchSessionRequest first = send();
    FetchSession.Outcome<String> outcome = session.onAnswer(answer(first, result(B, 3, 1, 20), result(C, 3, 1, 0)),
        now);
    FetchSession.Delivered<String> delivered = assertInstanceOf(FetchSession.Delivered.class, outcome);
    assertEquals(List.of(new FetchSession.Delivery<>("b", result(B, 3, 1, 20))), delivered.deliveries(),
        "C is not followed here: its answer goes nowhere");

    FetchSessionRequest second = send();
    session.restart();
    assertInstanceOf(FetchSession.Dropped.class, session.onAnswer(answer(second, result(A, 3, 1, 10)), now));
    FetchSessionRequest full = send();
    assertEquals(41, full.getSessionId());
    assertEquals(0, full.getSequence());
    assertEquals(List.of(A, B), shards(full), "a new session carries every position again");
  }

  @Test
  void aRequestUnansweredForTheFetchTimeoutRestartsTheSession() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    FetchSessionRequest first = send();
    now += TIMEOUT.toNanos() - 1;
    assertEquals(Optional.empty(), session.onTick(now));
    now += 1;
    assertEquals(Optional.of("request 0 had no answer within 1500 ms"), session.onTick(now));
    session.restart();
    FetchSessionRequest again = send();
    assertEquals(first.getSessionId() + 1, again.getSessionId());
    assertEquals(List.of(A), shards(again));
    assertEquals(2, session.sessions());
  }

  @Test
  void anAnswerThatSkipsARequestOrSaysTheSessionIsUnknownRestartsIt() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    FetchSessionRequest first = send();
    session.follow(A, "a", position(A, 3, 1, 12, 10));
    FetchSessionRequest second = send();
    // The answer to the first was lost (a full send queue): the second's arrives first.
    assertInstanceOf(FetchSession.Restart.class, session.onAnswer(answer(second), now));

    session.restart();
    FetchSessionRequest fresh = send();
    FetchSession.Outcome<String> reset = session.onAnswer(answer(fresh).toBuilder()
        .setError(SessionError.SESSION_RESET).build(), now);
    assertInstanceOf(FetchSession.Restart.class, reset);
    assertEquals(first.getSessionId() + 1, fresh.getSessionId());
  }

  @Test
  void aShardWhoseLeaderIsNotServingYetGoesAgainAfterTheRetryDelayAndAnOldPositionsErrorDoesNot() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    session.follow(B, "b", position(B, 3, 2, 20, 20));
    FetchSessionRequest first = send();
    session.onAnswer(answer(first, result(A, -1, 1, 10).toBuilder().setError(FetchError.FETCH_NOT_LEADER).build(),
        result(B, 3, 1, 20).toBuilder().setError(FetchError.FETCH_NOT_LEADER).build()), now);
    FetchSessionRequest poll = send();
    assertEquals(List.of(), shards(poll));

    now += FetchSession.RETRY.toNanos() - 1;
    session.onTick(now);
    assertTrue(!session.hasChanges());
    now += 1;
    session.onTick(now);
    assertEquals(List.of(A), shards(send()), "B's error answered fetch id 1, not its position now");
  }

  @Test
  void anUnfollowedShardIsNoLongerSentAndAnotherReplicasUnfollowIsIgnored() {
    session.follow(A, "a", position(A, 3, 1, 10, 10));
    session.follow(B, "b", position(B, 3, 1, 20, 20));
    session.unfollow(A, "a-old"); // a replica that was replaced by "a"
    session.unfollow(B, "b");
    assertEquals(List.of(A), shards(send()));
    assertEquals(1, session.followed());
  }

  @Test
  void positionsThatDoNotFitInOneRequestGoInTheNext() {
    FetchSession<String> small = new FetchSession<>(7, TIMEOUT, 50);
    small.follow(A, "a", position(A, 3, 1, 10, 10));
    small.follow(B, "b", position(B, 3, 1, 20, 20));
    small.follow(C, "c", position(C, 3, 1, 30, 30));
    FetchSessionRequest first = small.nextRequest(now).orElseThrow();
    assertTrue(first.getEntriesCount() < 3, "cut at the byte bound: " + first.getEntriesCount());
    FetchSessionRequest rest = small.nextRequest(now).orElseThrow();
    assertEquals(1, rest.getSequence());
    assertEquals(3, first.getEntriesCount() + rest.getEntriesCount() + (small.hasChanges() ? 1 : 0));
  }
}
