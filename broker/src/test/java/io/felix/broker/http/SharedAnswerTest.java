package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SharedAnswerTest {

  private static final Duration MAX_AGE = Duration.ofSeconds(1);
  private static final Duration MAX_STALE = Duration.ofSeconds(30);

  /** The asks made, each answered when the test says. */
  private final List<CompletableFuture<String>> asks = new ArrayList<>();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final SharedAnswer<String> shared = new SharedAnswer<>(MAX_AGE, MAX_STALE, nanos::get);

  private CompletionStage<String> get(long key) {
    return shared.get(key, () -> {
      CompletableFuture<String> ask = new CompletableFuture<>();
      asks.add(ask);
      return ask;
    });
  }

  @Test
  void requestsThatComeWhileAnAskRunsShareItsAnswer() {
    CompletionStage<String> first = get(1);
    nanos.addAndGet(Duration.ofSeconds(3).toNanos()); // a slow ask: still shared, however long it takes
    CompletionStage<String> second = get(1);
    assertEquals(1, asks.size(), "one ask for both requests");
    assertFalse(first.toCompletableFuture().isDone());

    asks.get(0).complete("leader on 2");
    assertEquals("leader on 2", first.toCompletableFuture().join());
    assertEquals("leader on 2", second.toCompletableFuture().join());
  }

  @Test
  void anAnswerServesTheRequestsOfTheNextMaxAgeThenServesOneMoreWhileANewAskRuns() {
    get(1);
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    asks.get(0).complete("leader on 2"); // the age counts from the answer, not the ask

    nanos.addAndGet(MAX_AGE.toNanos() - 1);
    assertEquals("leader on 2", get(1).toCompletableFuture().join());
    assertEquals(1, asks.size(), "answered " + (MAX_AGE.toNanos() - 1) + " ns ago: no new ask");

    nanos.addAndGet(1);
    assertEquals("leader on 2", get(1).toCompletableFuture().join(), "max-age old: served at once");
    assertEquals(2, asks.size(), "and asked again for the requests after it");
    assertEquals("leader on 2", get(1).toCompletableFuture().join());
    assertEquals(2, asks.size(), "one new ask at a time");

    asks.get(1).complete("leader on 1");
    assertEquals("leader on 1", get(1).toCompletableFuture().join(), "the new answer serves from now on");
    assertEquals(2, asks.size());
  }

  /** As {@link #get}, waiting at most {@code patience} for the ask when an earlier answer exists. */
  private CompletableFuture<SharedAnswer.Served<String>> get(long key, Duration patience, boolean anyKey) {
    return shared.get(key, () -> {
      CompletableFuture<String> ask = new CompletableFuture<>();
      asks.add(ask);
      return ask;
    }, patience, anyKey).toCompletableFuture();
  }

  @Test
  void aSlowAskServesTheEarlierAnswerWithItsAgeOnceThePatienceIsOverAndTheNextRequestsGetTheNewOne() {
    get(1);
    asks.get(0).complete("leader on 2");
    nanos.addAndGet(Duration.ofSeconds(3).toNanos()); // too old to serve at once: a new ask, which hangs

    SharedAnswer.Served<String> served = get(1, Duration.ofMillis(50), false).join();
    assertEquals("leader on 2", served.answer());
    assertEquals(3_050, served.staleMillis(), "its age when served: 3 s old, plus the 50 ms waited");
    assertEquals(2, asks.size());

    asks.get(1).complete("leader on 1");
    SharedAnswer.Served<String> next = get(1, Duration.ofMillis(50), false).join();
    assertEquals(new SharedAnswer.Served<>("leader on 1", 0), next, "the new answer, current");
  }

  @Test
  void aNewKeyWaitsForItsAskUnlessAnEarlierKeysAnswerMayServe() {
    get(1);
    asks.get(0).complete("table 1");

    CompletableFuture<SharedAnswer.Served<String>> strict = get(2, Duration.ofMillis(20), false);
    CompletableFuture<SharedAnswer.Served<String>> lenient = get(2, Duration.ofMillis(20), true);
    assertEquals("table 1", lenient.join().answer(), "any key: the answer of key 1 serves a request of key 2");
    assertFalse(strict.isDone(), "this key only: it waits for the ask of key 2");
    assertEquals(2, asks.size(), "both share one ask of key 2");
    asks.get(1).complete("table 2");
    assertEquals(new SharedAnswer.Served<>("table 2", 0), strict.join());
  }

  @Test
  void anAnswerTwiceMaxAgeOldServesNothing() {
    get(1);
    asks.get(0).complete("leader on 2");
    nanos.addAndGet(2 * MAX_AGE.toNanos());
    CompletionStage<String> waiting = get(1);
    assertFalse(waiting.toCompletableFuture().isDone(), "waits on a new ask");
    asks.get(1).complete("leader on 1");
    assertEquals("leader on 1", waiting.toCompletableFuture().join());
  }

  @Test
  void aNewKeyAsksAgainAtOnceAndItsAskIsSharedInTurn() {
    get(1);
    asks.get(0).complete("leader on 2");
    CompletionStage<String> running = get(2);
    assertEquals(2, asks.size(), "a new table version, or a command answered since: the answer may differ");
    assertSame(running, get(2));
    assertEquals(2, asks.size());
  }

  @Test
  void aFailedAskFailsItsRequestsAndServesNoLaterOne() {
    get(1);
    asks.get(0).complete("leader on 2");
    nanos.addAndGet(MAX_AGE.toNanos());
    get(1); // served the old answer, and started a new ask
    asks.get(1).completeExceptionally(new IllegalStateException("the singleton did not answer"));

    CompletionStage<String> next = get(1);
    assertEquals(3, asks.size(), "asked again at once, the old answer no longer served");
    asks.get(2).completeExceptionally(new IllegalStateException("the singleton did not answer"));
    CompletionException failed = assertThrows(CompletionException.class, () -> next.toCompletableFuture().join());
    assertEquals("the singleton did not answer", failed.getCause().getMessage());
  }

  @Test
  void afterAFailedAskTheEarlierAnswerStillServesAsStaleUntilMaxStale() {
    get(1);
    asks.get(0).complete("leader on 2");
    nanos.addAndGet(2 * MAX_AGE.toNanos());
    get(1); // too old to serve: a new ask, which fails
    asks.get(1).completeExceptionally(new IllegalStateException("the singleton did not answer"));

    SharedAnswer.Served<String> stale = get(1, Duration.ofMillis(20), false).join();
    assertEquals(new SharedAnswer.Served<>("leader on 2", 2_020), stale, "served after 20 ms, 2.02 s old");
    assertEquals(3, asks.size(), "while a new ask runs");

    nanos.addAndGet(MAX_STALE.toNanos());
    CompletableFuture<SharedAnswer.Served<String>> tooOld = get(1, Duration.ofMillis(20), false);
    asks.get(2).completeExceptionally(new IllegalStateException("the singleton did not answer"));
    CompletionException refused = assertThrows(CompletionException.class, tooOld::join);
    assertEquals("the singleton did not answer", refused.getCause().getMessage(), "older than max-stale: not served");
  }
}
