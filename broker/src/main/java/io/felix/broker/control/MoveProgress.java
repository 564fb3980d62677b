package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.shard.ReplicaStatus;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The progress of each move in flight. The destination (a learner when staged) catches up from the leader; once
 * it lags by at most {@code move-catch-up-lag} records the leader is fenced at {@code epoch + 1}
 * ({@link MoveFenced}) and stops taking appends while still shipping what it has; once the destination holds
 * every record of the fenced leader, the cut-over is decided ({@link MoveCompleted}). The write pause is the
 * fence-to-cut-over time. A move of a follower (a drain) fences the leader too: without joint consensus, a
 * replica set may only change when the new member holds every record the old set may have committed, and a
 * fenced leader commits nothing new.
 *
 * <p>It returns the events the answers justify and never changes decided state itself (the caller persists
 * them). The move's own state (copying, fenced) is the decided {@link MoveRecord}; only answers and when the
 * replicas were last asked live here.
 *
 * <table>
 *   <caption>One move</caption>
 *   <tr><th>move</th><th>when</th><th>then</th></tr>
 *   <tr><td>copying</td><td>the destination's log end has not grown for {@code move-stall-timeout} (the
 *       move's age does not count: a large shard may take long to copy)</td><td>{@link MoveAborted} at the
 *       leader's epoch: the leader never stopped and simply keeps leading</td></tr>
 *   <tr><td>any</td><td>leader or destination not reachable</td><td>wait</td></tr>
 *   <tr><td>copying</td><td>fresh answers of both, the destination hosted and within the catch-up lag</td>
 *       <td>{@link MoveFenced} at leader epoch + 1</td></tr>
 *   <tr><td>copying</td><td>otherwise</td><td>describe leader and destination (at most once per probe
 *       interval)</td></tr>
 *   <tr><td>fenced</td><td>fenced for over {@code move-fence-timeout} (writes are blocked meanwhile)</td><td>handed
 *       to failover ({@link #handedToFailover}): the fenced leader need not hold the most records, so it is not
 *       simply re-appointed</td></tr>
 *   <tr><td>fenced</td><td>a fresh answer of the leader to the fence at the move's epoch, and a fresh later one
 *       of the destination holding every record of it</td><td>{@link MoveCompleted} at the fence epoch</td></tr>
 *   <tr><td>fenced</td><td>otherwise</td><td>fence the leader again (its answer carries its log end), describe
 *       the destination (at most once per probe interval)</td></tr>
 * </table>
 */
final class MoveProgress {

  /** One answer from a replica; {@code fenceEpoch} 0 for a describe. */
  private record Answer(ReplicaStatus status, long fenceEpoch, long atMillis) {}

  private final ProbeContext context;
  private final Map<ShardId, Map<Integer, Answer>> answers = new HashMap<>();
  private final Map<ShardId, Long> askedAt = new HashMap<>();
  /** Copying moves: the destination's log end last seen, and since when it has not grown. */
  private final Map<ShardId, Copy> copies = new HashMap<>();
  /** Fenced moves: when this singleton fenced the leader, or first saw the move fenced (after a restart). */
  private final Map<ShardId, Long> fencedAt = new HashMap<>();

  /** A copy's progress: the destination's log end, and when it last grew (or the copy was first seen). */
  private record Copy(long destinationLogEnd, long sinceMillis) {}

  MoveProgress(ProbeContext context) {
    this.context = context;
  }

  /** A replica's answer to a fence ({@code fenceEpoch} > 0) or describe (0); the latest of each replica counts. */
  void answered(ReplicaStatus status, long fenceEpoch) {
    answers.computeIfAbsent(status.id(), id -> new HashMap<>())
        .put(status.brokerId(), new Answer(status, fenceEpoch, context.clock().millis()));
  }

  /**
   * Fenced moves past the fence timeout: writes to their shards are blocked, so rather than wait for the move they
   * get a failover round, which also aborts the move.
   */
  Set<ShardId> handedToFailover(ControlState state) {
    return state.moves().values().stream().filter(this::fencedAndTimedOut).map(MoveRecord::shard)
        .collect(Collectors.toSet());
  }

  /**
   * @param failingOver shards with a failover round: their moves wait (the round ends them)
   * @return the events the answers so far justify, in the order of the shards
   */
  List<PlacementEvent> progress(ControlState state, Set<Integer> available, Set<ShardId> failingOver) {
    List<PlacementEvent> events = new ArrayList<>();
    for (MoveRecord move : state.moves().values()) {
      ShardAssignment a = state.shards().get(move.shard());
      if (a != null && !failingOver.contains(a.id()) && !fencedAndTimedOut(move)) {
        events.addAll(progress(move, a, available));
      }
    }
    answers.keySet().retainAll(state.moves().keySet());
    askedAt.keySet().retainAll(state.moves().keySet());
    copies.keySet().retainAll(state.moves().keySet());
    fencedAt.keySet().retainAll(state.moves().keySet());
    return events;
  }

  private List<PlacementEvent> progress(MoveRecord move, ShardAssignment a, Set<Integer> available) {
    long now = context.clock().millis();
    Map<Integer, Answer> seen = answers.getOrDefault(a.id(), Map.of());
    if (move.fenceEpoch() == 0 && stalled(move, seen.get(move.to()), now)) { // its leader never stopped
      Copy copy = copies.get(a.id());
      context.log().warn("Move {} of {} from {} to {}: the copy made no progress for {} (destination at {} records);"
          + " aborted, leader {} keeps leading at epoch {}", move.moveId(), move.shard(), move.from(), move.to(),
          context.settings().moveStallTimeout(), copy.destinationLogEnd(), a.leader(), a.leaderEpoch());
      return List.of(new MoveAborted(a.id(), a.leaderEpoch(),
          "no copy progress for " + context.settings().moveStallTimeout().toMillis() + " ms", now));
    }
    int leader = a.leader();
    if (!available.contains(leader) || !available.contains(move.to())) {
      return List.of();
    }
    Answer fromLeader = seen.get(leader);
    Answer fromDestination = seen.get(move.to());
    if (move.fenceEpoch() == 0) {
      if (fresh(fromLeader, now) && fresh(fromDestination, now) && fromDestination.status().hosted()
          && fromDestination.status().logEndOffset()
              >= fromLeader.status().logEndOffset() - context.settings().moveCatchUpLag()) {
        long epoch = a.leaderEpoch() + 1;
        context.log().info("Move {} of {}: broker {} caught up to {} of {} records; fencing leader {} at epoch {}",
            move.moveId(), a.id(), move.to(), fromDestination.status().logEndOffset(),
            fromLeader.status().logEndOffset(), leader, epoch);
        fencedAt.put(a.id(), now);
        return List.of(new MoveFenced(a.id(), epoch));
      }
      ask(a.id(), now, () -> {
        context.probe().describe(leader, a.id());
        context.probe().describe(move.to(), a.id());
      });
      return List.of();
    }
    if (fresh(fromLeader, now) && fromLeader.fenceEpoch() == move.fenceEpoch()
        && fresh(fromDestination, now) && fromDestination.atMillis() >= fromLeader.atMillis()
        && holdsEveryRecordOf(fromDestination.status(), fromLeader.status())) {
      ShardAssignment after = PlacementSnapshots.finished(a, move, move.fenceEpoch());
      context.log().info(
          "Move {} of {}: broker {} holds all {} records; cut over to leader {} at epoch {}, replicas {} ({} ms)",
          move.moveId(), a.id(), move.to(), fromLeader.status().logEndOffset(), after.leader(), after.leaderEpoch(),
          after.replicas(), now - move.startedAtMillis());
      return List.of(new MoveCompleted(a.id(), after.replicas(), after.leader(), after.leaderEpoch(), now));
    }
    ask(a.id(), now, () -> {
      context.probe().fence(leader, a.id(), move.fenceEpoch());
      context.probe().describe(move.to(), a.id());
    });
    return List.of();
  }

  private boolean fencedAndTimedOut(MoveRecord move) {
    if (move.fenceEpoch() == 0) {
      return false;
    }
    long now = context.clock().millis();
    return now - fencedAt.computeIfAbsent(move.shard(), id -> now) > context.settings().moveFenceTimeout().toMillis();
  }

  /**
   * Whether the copy to the destination has not grown for the stall timeout. The move's age does not matter: a
   * large shard may take long to copy, and only a copy that stopped moving is given up.
   */
  private boolean stalled(MoveRecord move, Answer fromDestination, long now) {
    Copy copy = copies.computeIfAbsent(move.shard(), id -> new Copy(-1, now));
    if (fromDestination != null && fromDestination.status().hosted()
        && fromDestination.status().logEndOffset() > copy.destinationLogEnd()) {
      copy = new Copy(fromDestination.status().logEndOffset(), copy.destinationLogEnd() < 0 ? copy.sinceMillis()
          : fromDestination.atMillis());
      copies.put(move.shard(), copy);
    }
    return now - copy.sinceMillis() > context.settings().moveStallTimeout().toMillis();
  }

  /**
   * Whether the destination's log holds every record of the fenced leader's, so that it may lead. A length is not
   * enough: a leader that answers without its replica (not hosted, failed: log end 0) would pass any destination,
   * and a destination holding a longer, diverged tail of an older epoch would pass too. With the same last epoch
   * the destination's records of that epoch came from this leader, so its log is the leader's up to its end.
   */
  private static boolean holdsEveryRecordOf(ReplicaStatus destination, ReplicaStatus fencedLeader) {
    return fencedLeader.hosted() && !fencedLeader.failed()
        && destination.hosted() && !destination.failed()
        && destination.lastEpoch() == fencedLeader.lastEpoch()
        && destination.logEndOffset() >= fencedLeader.logEndOffset();
  }

  /** An answer older than twice the replica timeout describes a log that may have moved on since. */
  private boolean fresh(Answer answer, long now) {
    return answer != null && now - answer.atMillis() <= 2 * context.settings().replicaTimeout().toMillis();
  }

  /** At most one round of questions per shard in flight: the next goes out once answers could have come back. */
  private void ask(ShardId id, long now, Runnable questions) {
    Long last = askedAt.get(id);
    if (last == null || now - last >= context.settings().probeInterval().toMillis()) {
      askedAt.put(id, now);
      questions.run();
    }
  }
}
