package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * The replicas a {@link ReplicaDirectory} started and that have not opened their logs yet, so that a broker bringing
 * up thousands of replicas says so in one line when the last one has opened ("opened 3,334 replicas in 1.8 s, 0
 * failed, 12 quarantined"), not one line per replica. A round starts with the first replica started while none is
 * pending and ends when every replica started meanwhile has opened, failed to open, or stopped before it could say.
 * It also keeps, per replica still opening, the highest epoch a fence already waits for in its stash (see
 * {@link #fenceWaits}). Used only from the directory actor's thread.
 */
final class OpenRound {
  private final LongSupplier nanoClock;
  private final Set<ShardId> pending = new HashSet<>();
  private final Map<ShardId, Long> fencesWaiting = new HashMap<>();
  private long startedAtNanos;
  private int opened;
  private int failed;
  private int quarantined;

  OpenRound() {
    this(System::nanoTime);
  }

  OpenRound(LongSupplier nanoClock) {
    this.nanoClock = nanoClock;
  }

  void started(ShardId id) {
    if (pending.isEmpty() && opened + failed == 0) {
      startedAtNanos = nanoClock.getAsLong();
    }
    pending.add(id);
  }

  /** Old logs set aside while this round's replicas were started. */
  void quarantined(int count) {
    quarantined += count;
  }

  /** A replica of this round opened its log (or failed to); the round's line once it was the last one. */
  Optional<String> opened(ShardId id, boolean openFailed) {
    fencesWaiting.remove(id);
    if (!pending.remove(id)) {
      return Optional.empty();
    }
    if (openFailed) {
      failed++;
    } else {
      opened++;
    }
    return finishIfDone();
  }

  /** A replica stopped; if it had not said whether it opened, it counts as failed. */
  Optional<String> stopped(ShardId id) {
    return pending.contains(id) ? opened(id, true) : Optional.empty();
  }

  int pending() {
    return pending.size();
  }

  /** Whether the replica was started and has not yet said whether its log opened: it is starting. */
  boolean pending(ShardId id) {
    return pending.contains(id);
  }

  /**
   * Whether a fence at {@code epoch} or above already waits for the replica {@code id}, still opening, to adopt it;
   * if not, the fence at {@code epoch} is now counted as waiting. Its log opened, the replica adopts the waiting fence
   * first and answers the next fence at once: the singleton fences again every replica timeout until it has an
   * answer, and with 10,000 replicas opening for 20-45 s each of those fences waited in a stash, then was answered to
   * a collector long gone (measured 2026-12-07: 8,677 shards asked again every 2 s while one broker opened its
   * replicas, on a broker that then spent a sixth of the restart in garbage collection).
   */
  boolean fenceWaits(ShardId id, long epoch) {
    if (!pending.contains(id)) {
      return false;
    }
    Long waiting = fencesWaiting.get(id);
    if (waiting != null && waiting >= epoch) {
      return true;
    }
    fencesWaiting.put(id, epoch);
    return false;
  }

  private Optional<String> finishIfDone() {
    if (!pending.isEmpty()) {
      return Optional.empty();
    }
    double seconds = (nanoClock.getAsLong() - startedAtNanos) / 1e9;
    String line = String.format("opened %,d replicas in %.1f s, %,d failed, %,d quarantined", opened + failed, seconds,
        failed, quarantined);
    opened = 0;
    failed = 0;
    quarantined = 0;
    return Optional.of(line);
  }
}
