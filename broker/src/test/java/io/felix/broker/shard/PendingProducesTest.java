package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PendingProducesTest {
  static final Duration TIMEOUT = Duration.ofSeconds(3);

  final ManualClock clock = new ManualClock();
  final PendingProduces pending = new PendingProduces(7, clock.replicaClock());

  CompletableFuture<Response> add(Acks acks, long base, long end) {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    pending.add(acks, base, end, TIMEOUT, reply);
    return reply;
  }

  @Test
  void eachLevelIsAnsweredOnceItsWholeBatchMeetsIt() {
    CompletableFuture<Response> quorum = add(Acks.QUORUM, 0, 5);
    CompletableFuture<Response> leader = add(Acks.LEADER, 5, 10);
    CompletableFuture<Response> all = add(Acks.ALL, 10, 15);

    pending.complete(4, 9, end -> true); // quorum needs 5 committed, leader 10 stored
    assertFalse(quorum.isDone());
    assertFalse(leader.isDone());
    assertSucceeded(10, all.getNow(null));

    pending.complete(5, 10, end -> false);
    assertSucceeded(0, quorum.getNow(null));
    assertSucceeded(5, leader.getNow(null));
    assertTrue(pending.isEmpty());
  }

  @Test
  void aLevelIsAnsweredInOffsetOrder() {
    CompletableFuture<Response> first = add(Acks.ALL, 0, 5);
    CompletableFuture<Response> second = add(Acks.ALL, 5, 10);

    pending.complete(10, 10, end -> end != 5); // the first is not met: the second waits behind it
    assertFalse(first.isDone());
    assertFalse(second.isDone());
  }

  @Test
  void aRequestPastItsDeadlineFailsWithARetriableErrorAndNeverSucceedsAfterwards() {
    CompletableFuture<Response> reply = add(Acks.QUORUM, 0, 5);
    CompletableFuture<Response> later = add(Acks.QUORUM, 5, 10);
    clock.advance(Duration.ofSeconds(1));
    CompletableFuture<Response> youngest = add(Acks.QUORUM, 10, 15);

    pending.expire(clock.nanoTime() + TIMEOUT.toNanos() - Duration.ofSeconds(1).toNanos() - 1,
        Errors.of(ErrorCode.TIMEOUT, "acks not met"));
    assertFalse(reply.isDone());

    clock.advance(TIMEOUT.minusSeconds(1));
    pending.expire(clock.nanoTime(), Errors.of(ErrorCode.TIMEOUT, "acks not met"));
    Response failed = reply.getNow(null);
    assertEquals(ErrorCode.TIMEOUT, failed.getError().getCode());
    assertTrue(Errors.isRetriable(failed.getError().getCode()));
    assertFalse(failed.hasProduce());
    assertEquals(ErrorCode.TIMEOUT, later.getNow(null).getError().getCode());
    assertFalse(youngest.isDone());

    pending.complete(15, 15, end -> true);
    assertEquals(ErrorCode.TIMEOUT, reply.getNow(null).getError().getCode());
    assertSucceeded(10, youngest.getNow(null));
  }

  @Test
  void theTimeoutErrorIsTheOneGiven() {
    CompletableFuture<Response> reply = add(Acks.ALL, 0, 5);
    clock.advance(TIMEOUT);
    pending.expire(clock.nanoTime(), Errors.of(ErrorCode.NOT_ENOUGH_REPLICAS, "1 of 3 in contact"));
    assertEquals(ErrorCode.NOT_ENOUGH_REPLICAS, reply.getNow(null).getError().getCode());
  }

  @Test
  void failAllAnswersEveryLevelWithTimeoutAsTheOutcomeIsUnknown() {
    CompletableFuture<Response> quorum = add(Acks.QUORUM, 0, 5);
    CompletableFuture<Response> leader = add(Acks.LEADER, 5, 10);
    CompletableFuture<Response> all = add(Acks.ALL, 10, 15);

    pending.failAll("leadership ended");

    for (CompletableFuture<Response> reply : java.util.List.of(quorum, leader, all)) {
      Response r = reply.getNow(null);
      assertEquals(ErrorCode.TIMEOUT, r.getError().getCode());
      assertFalse(r.getError().getNotAppended());
    }
    assertTrue(pending.isEmpty());
  }

  private static void assertSucceeded(long baseOffset, Response response) {
    assertFalse(response.hasError(), () -> "expected success, got " + response.getError());
    assertEquals(baseOffset, response.getProduce().getBaseOffset());
    assertEquals(7, response.getProduce().getLeaderEpoch());
  }
}
