package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * The status of every replica in the cluster, for the lists of the admin API ({@code GET /v1/brokers},
 * {@code GET /v1/streams}), shared between requests as long as the assignment table is the same version:
 * <ul>
 *   <li>an answer younger than {@code maxAge} serves a request at once;</li>
 *   <li>one younger than twice that serves it too, while a new ask of the replicas starts (if none runs) for the
 *       requests after it, so a dashboard polling faster than {@code maxAge} never waits on the replicas;</li>
 *   <li>any other request waits on the running ask, or starts one: every request that comes while it runs shares
 *       its answer.</li>
 * </ul>
 * Without it each poll asked every replica: a dashboard polling three brokers four times a second, over 10,000
 * shards of three replicas, was 360,000 asks a second on the replicas' threads. A shard's detail
 * ({@code GET /v1/streams/NAME}) still asks its replicas each time: it is one stream's.
 */
final class SharedStatuses {

  private final AdminRoutes.ShardStatuses source;
  private final long maxAgeNanos;
  private final LongSupplier nanoClock;

  /** The last answer, null before the first (or after a failed ask). */
  private Answered answered;
  /** The ask running now, null when none runs. */
  private Running running;

  private record Answered(long tableVersion, Map<ShardId, Map<Integer, ReplicaStatus>> statuses, long atNanos) {}

  private record Running(long tableVersion, CompletableFuture<Map<ShardId, Map<Integer, ReplicaStatus>>> answer) {}

  /**
   * @param maxAge how long an answer serves later requests without a new ask (zero: only those that came while it
   *     ran)
   * @param nanoClock the time in nanoseconds ({@link System#nanoTime} but in tests)
   */
  SharedStatuses(AdminRoutes.ShardStatuses source, Duration maxAge, LongSupplier nanoClock) {
    this.source = source;
    this.maxAgeNanos = maxAge.toNanos();
    this.nanoClock = nanoClock;
  }

  /** Every replica's status (shard -> broker -> status; missing where none answered; empty if the ask failed). */
  synchronized CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> of(AssignmentTable table) {
    long version = table.version();
    if (answered != null && answered.tableVersion() == version) {
      long age = nanoClock.getAsLong() - answered.atNanos();
      if (age < 2 * maxAgeNanos) {
        if (age >= maxAgeNanos) {
          ask(table); // for the requests after this one
        }
        return CompletableFuture.completedFuture(answered.statuses());
      }
    }
    return ask(table);
  }

  /** The running ask of this table's version, or a new one. */
  private CompletableFuture<Map<ShardId, Map<Integer, ReplicaStatus>>> ask(AssignmentTable table) {
    if (running != null && running.tableVersion() == table.version()) {
      return running.answer();
    }
    Running ask = new Running(table.version(), new CompletableFuture<>());
    running = ask;
    source.of(table, shard -> true).whenComplete((statuses, failure) -> {
      done(ask, failure == null ? statuses : null);
      ask.answer().complete(failure == null ? statuses : Map.of());
    });
    return ask.answer();
  }

  /** A failed ask ({@code statuses} null) serves no later request: the next one asks again. */
  private synchronized void done(Running ask, Map<ShardId, Map<Integer, ReplicaStatus>> statuses) {
    if (running == ask) {
      running = null;
    }
    if (statuses != null && (answered == null || answered.tableVersion() <= ask.tableVersion())) {
      answered = new Answered(ask.tableVersion(), statuses, nanoClock.getAsLong());
    } else if (statuses == null && answered != null && answered.tableVersion() == ask.tableVersion()) {
      answered = null;
    }
  }
}
