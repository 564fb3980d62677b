package io.felix.broker.http;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * One answer shared by the admin API's list requests ({@code GET /v1/brokers}, {@code GET /v1/streams}) instead of
 * one ask per request, as long as what it was asked under (its key: the assignment table's version, the number of
 * commands this broker has had answered) is the same:
 * <ul>
 *   <li>an answer younger than {@code maxAge} serves a request at once;</li>
 *   <li>one younger than twice that serves it too, while a new ask starts (if none runs) for the requests after
 *       it, so a dashboard polling faster than {@code maxAge} never waits;</li>
 *   <li>any other request waits on the running ask, or starts one: every request that comes while it runs shares
 *       its answer.</li>
 * </ul>
 * A failed ask fails the requests waiting on it and serves no later one. Without this, every poll of a list asked
 * the placement singleton for its whole state (a 10,000-shard stream's, serialized to the asking broker) and every
 * replica of the cluster for its status: with three brokers polled four times a second, a third of the brokers' CPU
 * while a 10,000-shard stream was created (measured with JFR, 2026-12-06).
 *
 * @param <T> what is asked for
 */
final class SharedAnswer<T> {

  private final long maxAgeNanos;
  private final LongSupplier nanoClock;

  /** The last answer, null before the first (or after a failed ask). */
  private Answered<T> answered;
  /** The ask running now, null when none runs. */
  private Running<T> running;

  private record Answered<T>(long key, T answer, long atNanos) {}

  private record Running<T>(long key, CompletableFuture<T> answer) {}

  /**
   * @param maxAge how long an answer serves later requests without a new ask (zero: only those that came while it
   *     ran)
   * @param nanoClock the time in nanoseconds ({@link System#nanoTime} but in tests)
   */
  SharedAnswer(Duration maxAge, LongSupplier nanoClock) {
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = nanoClock;
  }

  /** The answer for {@code key}: shared, or asked for with {@code ask}. */
  synchronized CompletionStage<T> get(long key, Supplier<CompletionStage<T>> ask) {
    if (answered != null && answered.key() == key) {
      long age = nanoClock.getAsLong() - answered.atNanos();
      if (age < 2 * maxAgeNanos) {
        if (age >= maxAgeNanos) {
          ask(key, ask); // for the requests after this one
        }
        return CompletableFuture.completedFuture(answered.answer());
      }
    }
    return ask(key, ask);
  }

  /** The running ask for this key, or a new one. */
  private CompletableFuture<T> ask(long key, Supplier<CompletionStage<T>> ask) {
    if (running != null && running.key() == key) {
      return running.answer();
    }
    Running<T> asked = new Running<>(key, new CompletableFuture<>());
    running = asked;
    ask.get().whenComplete((answer, failure) -> {
      done(asked, answer, failure == null);
      if (failure == null) {
        asked.answer().complete(answer);
      } else {
        asked.answer().completeExceptionally(failure);
      }
    });
    return asked.answer();
  }

  private synchronized void done(Running<T> asked, T answer, boolean succeeded) {
    if (running == asked) {
      running = null;
    }
    if (succeeded && (answered == null || answered.key() <= asked.key())) {
      answered = new Answered<>(asked.key(), answer, nanoClock.getAsLong());
    } else if (!succeeded && answered != null && answered.key() == asked.key()) {
      answered = null;
    }
  }
}
