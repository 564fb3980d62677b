package io.felix.broker.http;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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
 * A failed ask fails the requests waiting on it, and the answer before it no longer serves at once; it may still
 * serve, as stale, a request that waited {@code patience} ({@link #get(long, Supplier, Duration, boolean)}), while it
 * is younger than {@code maxStale}. Without this sharing, every poll of a list asked
 * the placement singleton for its whole state (a 10,000-shard stream's, serialized to the asking broker) and every
 * replica of the cluster for its status: with three brokers polled four times a second, a third of the brokers' CPU
 * while a 10,000-shard stream was created (measured with JFR, 2026-12-06).
 *
 * @param <T> what is asked for
 */
final class SharedAnswer<T> {

  private final long maxAgeNanos;
  private final long maxStaleNanos;
  private final LongSupplier nanoClock;

  /** The last answer, null before the first (or after a failed ask). */
  private Answered<T> answered;
  /** The ask running now, null when none runs. */
  private Running<T> running;

  /** @param current whether it may serve at once: false once an ask after it failed (then only as stale) */
  private record Answered<T>(long key, T answer, long atNanos, boolean current) {}

  private record Running<T>(long key, CompletableFuture<T> answer) {}

  /**
   * @param maxAge how long an answer serves later requests without a new ask (zero: only those that came while it
   *     ran)
   * @param maxStale how old an answer may be to serve, as stale, a request whose ask took too long
   * @param nanoClock the time in nanoseconds ({@link System#nanoTime} but in tests)
   */
  SharedAnswer(Duration maxAge, Duration maxStale, LongSupplier nanoClock) {
    this.maxAgeNanos = maxAge.toNanos();
    this.maxStaleNanos = maxStale.toNanos();
    this.nanoClock = nanoClock;
  }

  /** The answer for {@code key}: shared, or asked for with {@code ask}. */
  synchronized CompletionStage<T> get(long key, Supplier<CompletionStage<T>> ask) {
    if (answered != null && answered.current() && answered.key() == key) {
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

  /**
   * An answer as a list serves it: {@code staleMillis} is 0 for an answer the sharing rules above allow, otherwise the
   * age of the earlier answer served because the current one took too long ({@link #get(long, Supplier, Duration,
   * boolean)}).
   */
  record Served<T>(T answer, long staleMillis) {}

  /**
   * As {@link #get(long, Supplier)}, but a request waits at most {@code patience} for an ask when an earlier answer
   * younger than {@code maxStale} exists: of this key, or, with {@code anyKey}, of any key. Then that answer serves,
   * with its age, and the ask goes on for the requests after. A list stays answered while what it asks (the placement
   * singleton, every broker) is slow, as when three brokers on two cores create 10,000 replicas each; it is never
   * staler than the last answer, nor, without {@code anyKey}, older than the last command this broker answered.
   */
  synchronized CompletionStage<Served<T>> get(long key, Supplier<CompletionStage<T>> ask, Duration patience,
      boolean anyKey) {
    Answered<T> earlier = answered;
    CompletableFuture<Served<T>> current = get(key, ask).toCompletableFuture().thenApply(a -> new Served<>(a, 0));
    long staleNanos = nanoClock.getAsLong() + patience.toNanos() - (earlier == null ? 0 : earlier.atNanos());
    if (current.isDone() || earlier == null || !anyKey && earlier.key() != key || staleNanos > maxStaleNanos) {
      return current;
    }
    return current.completeOnTimeout(new Served<>(earlier.answer(), Math.max(1, staleNanos / 1_000_000)),
        patience.toNanos(), TimeUnit.NANOSECONDS);
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
      answered = new Answered<>(asked.key(), answer, nanoClock.getAsLong(), true);
    } else if (!succeeded && answered != null && answered.key() == asked.key()) {
      answered = new Answered<>(answered.key(), answered.answer(), answered.atNanos(), false);
    }
  }
}
