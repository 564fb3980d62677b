package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.placement.Planner;
import io.felix.placement.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * The singleton's conversations with replicas: failover rounds and move progress. Each call to
 * {@link #progress} sends the fences and describes that are due and returns the events that the answers so far
 * justify; it never changes the decided state itself (the caller persists the events).
 *
 * <p>Failover (fence first, then choose, as Raft does): a shard whose leader has been unreachable for the
 * failover timeout gets {@code epoch = current + 1}; every reachable replica is fenced at it. Once a majority of
 * the replica set has answered (the lost leader counts as silent), no old leader can commit anything, and the
 * answering replicas with the greatest (last epoch, log end) hold every committed record (any committed record
 * is on a majority, which meets the answering majority). The library's promotion rule chooses among those.
 *
 * <p>Move: the destination (a learner when staged) catches up from the leader; once it lags by at most
 * {@code move-catch-up-lag} records the leader is fenced at {@code epoch + 1} ({@link MoveFenced}) and stops
 * taking appends while still shipping what it has; once the destination's log end reaches the fenced leader's,
 * the cut-over is decided ({@link MoveCompleted}). A move past its timeout is aborted: an unfenced leader simply
 * goes on; once the leader was fenced, the shard gets a failover round instead (the fenced leader need not hold
 * the most records), which may well choose it again. A leader whose broker restarted (a new incarnation, which
 * refuses to lead at the epoch its log holds) gets a failover round at once, the failover timeout not waited
 * for. A move of a follower (a drain) fences the leader too: without joint consensus, a replica set may only
 * change when the new member holds every record the old set may have committed, and a fenced leader commits
 * nothing new. The write pause is the fence-to-cut-over time.
 */
final class ReplicaRounds {

  /** One answer from a replica; {@code fenceEpoch} 0 for a describe. */
  record Answer(ReplicaStatus report, long fenceEpoch, long atMillis) {}

  private record Failover(long epoch, long startedAtMillis) {}

  private final ControlSettings settings;
  private final ReplicaProbe probe;
  private final Logger log;
  private final Map<ShardId, Failover> failovers = new HashMap<>();
  private final Map<ShardId, Map<Integer, Answer>> answers = new HashMap<>();
  private final Map<ShardId, Long> askedAt = new HashMap<>();

  ReplicaRounds(ControlSettings settings, ReplicaProbe probe, Logger log) {
    this.settings = settings;
    this.probe = probe;
    this.log = log;
  }

  void answered(ReplicaStatus report, long fenceEpoch, long nowMillis) {
    answers.computeIfAbsent(report.id(), id -> new HashMap<>())
        .put(report.brokerId(), new Answer(report, fenceEpoch, nowMillis));
  }

  boolean failingOver(ShardId id) {
    return failovers.containsKey(id);
  }

  /**
   * @param lostSince when each unreachable broker was last seen reachable (brokers not listed are reachable)
   * @param leaderRestarted shards whose leader's broker came back as a new incarnation: its replica will not lead
   *     again at the epoch it held before the restart, so these need a failover round at once
   */
  List<PlacementEvent> progress(ControlState state, Set<Integer> available, Map<Integer, Long> lostSince,
      Set<ShardId> leaderRestarted, long nowMillis) {
    List<PlacementEvent> events = new ArrayList<>();
    Set<ShardId> failingOver = new HashSet<>();
    for (ShardAssignment a : state.shards().values()) {
      Long lost = a.leader() == ShardAssignment.NO_LEADER ? Long.valueOf(0) : lostSince.get(a.leader());
      MoveRecord move = state.moves().get(a.id());
      // A fenced move that timed out fails over too: the fenced leader need not hold the most records (the
      // destination may), so it is not simply re-appointed.
      boolean fencedMoveTimedOut = move != null && move.fenceEpoch() > 0
          && nowMillis - move.startedAtMillis() > settings.moveTimeout().toMillis();
      if (lost != null && nowMillis - lost >= settings.failoverTimeout().toMillis()
          || leaderRestarted.contains(a.id()) || fencedMoveTimedOut) {
        failingOver.add(a.id());
        events.addAll(failover(state, a, available, nowMillis));
      } else {
        failovers.remove(a.id());
      }
    }
    for (MoveRecord move : state.moves().values()) {
      ShardAssignment a = state.shards().get(move.shard());
      if (a != null && !failingOver.contains(a.id())) {
        events.addAll(advance(move, a, available, nowMillis));
      }
    }
    answers.keySet().removeIf(id -> !failovers.containsKey(id) && !state.moves().containsKey(id));
    askedAt.keySet().removeIf(id -> !failovers.containsKey(id) && !state.moves().containsKey(id));
    return events;
  }

  private List<PlacementEvent> failover(ControlState state, ShardAssignment a, Set<Integer> available, long now) {
    MoveRecord move = state.moves().get(a.id());
    long epoch = Math.max(a.leaderEpoch(), move == null ? 0 : move.fenceEpoch()) + 1;
    Failover round = failovers.get(a.id());
    if (round == null || round.epoch() != epoch || now - round.startedAtMillis() > settings.replicaTimeout().toMillis()) {
      failovers.put(a.id(), new Failover(epoch, now));
      answers.remove(a.id());
      // A restarted leader is reachable and fenced like the others: its log may hold the most records.
      for (int b : a.replicas()) {
        if (available.contains(b)) {
          probe.fence(b, a.id(), epoch);
        }
      }
      return List.of();
    }
    List<ReplicaStatus> fenced = answers.getOrDefault(a.id(), Map.of()).values().stream()
        .filter(x -> x.fenceEpoch() == epoch && x.atMillis() >= round.startedAtMillis())
        .map(Answer::report)
        .filter(r -> r.hosted() && !r.failed())
        .toList();
    if (fenced.size() < a.quorumSize()) {
      return List.of();
    }
    ReplicaStatus best = fenced.stream().max(ReplicaStatus::compareLog).orElseThrow();
    Set<Integer> inSync = fenced.stream().filter(r -> r.compareLog(best) == 0).map(ReplicaStatus::brokerId)
        .collect(Collectors.toSet());
    // The rule chooses in a layout where the shard is leaderless and its move undone: the rule never re-chooses
    // the leader it replaces nor a move's destination (shown as leader), yet a restarted or fenced leader, or the
    // destination, may be the only replica holding every committed record.
    ControlState leaderless = (move == null ? state : state.apply(new MoveAborted(a.id(), epoch, "", now)))
        .apply(new LeaderPromoted(a.id(), ShardAssignment.NO_LEADER, epoch, a.leader()));
    Optional<Step> step = Planner.promote(PlacementSnapshots.of(leaderless, available, settings), a.id().stream(),
        a.id().shard(), inSync);
    if (step.isEmpty()) {
      log.warn("Shard {} has no live replica among {} holding every committed record; it stays down", a.id(), inSync);
      return List.of();
    }
    failovers.remove(a.id());
    List<PlacementEvent> events = new ArrayList<>();
    if (move != null) {
      events.add(new MoveAborted(a.id(), epoch, available.contains(a.leader())
          ? "timed out after " + settings.moveTimeout().toMillis() + " ms, or leader " + a.leader() + " restarted"
          : "leader " + a.leader() + " was lost", now));
    }
    events.add(new LeaderPromoted(a.id(), step.get().to(), epoch, a.leader()));
    log.info("Shard {}: leader {} {}; {} of {} replicas fenced at epoch {}, broker {} promoted (log end {}, last epoch {})",
        a.id(), a.leader(), available.contains(a.leader()) ? "restarted or its fenced move timed out" : "lost",
        fenced.size(), a.replicas().size(), epoch, step.get().to(), best.logEndOffset(), best.lastEpoch());
    return events;
  }

  private List<PlacementEvent> advance(MoveRecord move, ShardAssignment a, Set<Integer> available, long now) {
    // Only a move not yet fenced times out here (a fenced one fails over in progress): its leader never stopped,
    // so it simply keeps leading at its epoch.
    if (now - move.startedAtMillis() > settings.moveTimeout().toMillis()) {
      log.warn("Move {} of {} from {} to {} did not finish within {}; aborted, leader {} keeps leading at epoch {}",
          move.moveId(), move.shard(), move.from(), move.to(), settings.moveTimeout(), a.leader(), a.leaderEpoch());
      return List.of(new MoveAborted(a.id(), a.leaderEpoch(),
          "timed out after " + settings.moveTimeout().toMillis() + " ms", now));
    }
    int leader = a.leader();
    if (!available.contains(leader) || !available.contains(move.to())) {
      return List.of();
    }
    Map<Integer, Answer> seen = answers.getOrDefault(a.id(), Map.of());
    Answer fromLeader = seen.get(leader);
    Answer fromDestination = seen.get(move.to());
    if (move.fenceEpoch() == 0) {
      if (fresh(fromLeader, now) && fresh(fromDestination, now) && fromDestination.report().hosted()
          && fromDestination.report().logEndOffset() >= fromLeader.report().logEndOffset() - settings.moveCatchUpLag()) {
        long epoch = a.leaderEpoch() + 1;
        log.info("Move {} of {}: broker {} caught up to {} of {} records; fencing leader {} at epoch {}",
            move.moveId(), a.id(), move.to(), fromDestination.report().logEndOffset(),
            fromLeader.report().logEndOffset(), leader, epoch);
        return List.of(new MoveFenced(a.id(), epoch));
      }
      ask(a.id(), now, () -> {
        probe.describe(leader, a.id());
        probe.describe(move.to(), a.id());
      });
      return List.of();
    }
    if (fromLeader != null && fromLeader.fenceEpoch() == move.fenceEpoch() && fresh(fromLeader, now)
        && fresh(fromDestination, now) && fromDestination.atMillis() >= fromLeader.atMillis()
        && holdsEveryRecordOf(fromDestination.report(), fromLeader.report())) {
      ShardAssignment after = PlacementSnapshots.finished(a, move, move.fenceEpoch());
      log.info("Move {} of {}: broker {} holds all {} records; cut over to leader {} at epoch {}, replicas {} ({} ms)",
          move.moveId(), a.id(), move.to(), fromLeader.report().logEndOffset(), after.leader(), after.leaderEpoch(),
          after.replicas(), now - move.startedAtMillis());
      return List.of(new MoveCompleted(a.id(), after.replicas(), after.leader(), after.leaderEpoch(), now));
    }
    ask(a.id(), now, () -> {
      probe.fence(leader, a.id(), move.fenceEpoch());
      probe.describe(move.to(), a.id());
    });
    return List.of();
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

  private boolean fresh(Answer answer, long now) {
    return answer != null && now - answer.atMillis() <= 2 * settings.replicaTimeout().toMillis();
  }

  /** At most one round of questions per shard in flight: the next goes out once answers could have come back. */
  private void ask(ShardId id, long now, Runnable questions) {
    Long last = askedAt.get(id);
    if (last == null || now - last >= settings.probeInterval().toMillis()) {
      askedAt.put(id, now);
      questions.run();
    }
  }
}
