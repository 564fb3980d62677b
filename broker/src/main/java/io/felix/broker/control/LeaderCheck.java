package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.NotServingReason;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ReplicaStatuses;
import java.time.Clock;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;

/**
 * Whether each shard's assigned leader actually serves, not only whether its broker is reachable: a replica can be
 * assigned to lead yet not lead (after a restart it refuses an epoch its log already holds, its log failed to open,
 * its actor was respawned), and then nothing else would ever change the shard's leadership. So the singleton asks
 * every reachable leader of a shard without a move in flight, once per {@code check-interval}, for the role its
 * replica published (its broker's role board answers for all of them at once, without a message to any replica:
 * at 10,000 shards one message per replica every interval was most of an idle broker's work), and a leader that
 * answers twice in a row, at least a check interval apart and for the same assignment, that it does not lead
 * sends the shard through a failover round (fence a majority, promote). An answer counts only once its broker has
 * applied the table that appoints the leader: each answer carries the version of the broker's table, and a broker
 * that lags behind (under load a table can take seconds to apply) answers about an assignment it has not seen yet.
 * Two answers, not one, because a replica may still be taking up the appointment it has just applied. A replica that
 * has applied the table and refuses to lead says so itself ({@link #reported}): that report is believed at once.
 *
 * <p>Transitions per shard: no answer → (answer: leads) → serving; (answer: does not lead) → suspect;
 * suspect → (another such answer, an interval later) → not serving, needs failover; any state → (report of the
 * current leader at the current epoch) → not serving; any newer epoch, leader or move → forgotten.
 */
final class LeaderCheck {

  /** The first answer of the assigned leader at this epoch saying it does not lead, and when it came. */
  private record Suspect(int leader, long epoch, long sinceMillis, boolean confirmed) {}

  /**
   * A shard's assignment as asked about, and the table version from which this check has seen it: the table that
   * appointed its leader is that one or an older one, so a broker holding at least this version has seen it.
   */
  private record Asked(ShardAssignment assignment, long seenSinceVersion) {}

  private final Clock clock;
  private final long intervalMillis;
  private final ReplicaProbe probe;
  private final Logger log;
  /** When each broker was last asked about the shards it leads. */
  private final Map<Integer, Long> askedAt = new HashMap<>();
  /** Shards found not serving since the last summary line, by the broker assigned to lead them. */
  private final Map<Integer, Integer> confirmedByBroker = new TreeMap<>();
  private final Map<ShardId, Asked> asked = new HashMap<>();
  private final Map<ShardId, Suspect> suspects = new HashMap<>();

  LeaderCheck(ProbeContext context) {
    this.clock = context.clock();
    this.intervalMillis = context.settings().placementInterval().toMillis();
    this.probe = context.probe();
    this.log = context.log();
  }

  /**
   * Asks every broker that was not asked within the interval about all the shards it leads (one batch per broker);
   * forgets what a newer assignment or a move made stale; logs, once, the shards found not serving since last time.
   */
  void ask(ControlState state, Set<Integer> available) {
    long now = clock.millis();
    suspects.entrySet().removeIf(e -> stale(state, e.getKey(), e.getValue().leader(), e.getValue().epoch()));
    logConfirmed();
    Set<Integer> due = new HashSet<>();
    for (int broker : available) {
      Long last = askedAt.get(broker);
      if (last == null || now - last >= intervalMillis) {
        due.add(broker);
      }
    }
    if (due.isEmpty()) {
      return;
    }
    Set<Integer> unknown = new HashSet<>();
    for (ShardAssignment a : state.shards().values()) {
      if (!due.contains(a.leader()) || state.moves().containsKey(a.id())) {
        continue;
      }
      if (probe.describeRole(a.leader(), a.id())) {
        Asked before = asked.get(a.id());
        boolean sameAppointment = before != null && before.assignment().leader() == a.leader()
            && before.assignment().leaderEpoch() == a.leaderEpoch();
        asked.put(a.id(), new Asked(a, sameAppointment ? before.seenSinceVersion() : state.tableVersion()));
      } else {
        unknown.add(a.leader());
      }
    }
    // Not before its directory is known: a broker just up is asked once it is.
    due.stream().filter(b -> !unknown.contains(b)).forEach(b -> askedAt.put(b, now));
    asked.keySet().retainAll(state.shards().keySet());
  }

  /**
   * Every leader is asked again at the next {@link #ask}, not an interval after it was last asked: after this
   * singleton recovered, or a member came up (a restarted broker, first sightings included, may hold replicas
   * assigned to lead that refuse the epoch their log held before the restart).
   */
  void askAllAtOnce() {
    askedAt.clear();
  }

  /**
   * A describe's answer ({@code fenceEpoch} 0) from a broker holding table {@code tableVersion}; answers of other
   * replicas, or to fences, say nothing here.
   */
  void answered(ReplicaStatus status, long fenceEpoch, long tableVersion) {
    Asked question = asked.get(status.id());
    if (fenceEpoch != 0 || question == null || status.brokerId() != question.assignment().leader()) {
      return;
    }
    ShardAssignment a = question.assignment();
    if (status.role() == ReplicaRole.LEADER) {
      leads(a.id(), status.brokerId());
      return;
    }
    if (status.role() == ReplicaRole.STARTING) {
      return; // still opening its log: it has not had the time to lead, and is not failing
    }
    if (tableVersion < question.seenSinceVersion()) {
      return; // its broker has not applied the appointment yet: it cannot lead what it has not been told to
    }
    long now = clock.millis();
    Suspect suspect = suspects.get(a.id());
    if (suspect == null || suspect.leader() != a.leader() || suspect.epoch() != a.leaderEpoch()) {
      suspects.put(a.id(), new Suspect(a.leader(), a.leaderEpoch(), now, false));
    } else if (!suspect.confirmed() && now - suspect.sinceMillis() >= intervalMillis) {
      suspects.put(a.id(), new Suspect(a.leader(), a.leaderEpoch(), suspect.sinceMillis(), true));
      confirmedByBroker.merge(a.leader(), 1, Integer::sum);
      log.debug("Shard {}: broker {} is assigned to lead at epoch {} but answers as {} ({}); failing it over",
          a.id(), a.leader(), a.leaderEpoch(), status.role().wireName(),
          status.failed() ? "its log failed" : status.hosted() ? "it refuses or lost that epoch" : "no replica");
    }
  }

  /**
   * A broker's answer to a roles-only question about {@code asked}: it lists the replicas that do not lead, and every
   * asked shard it leaves out leads.
   */
  void answeredRoles(ReplicaStatuses answer, List<ShardId> asked) {
    Set<ShardId> notLeading = new HashSet<>();
    for (ReplicaStatus status : answer.statuses()) {
      notLeading.add(status.id());
      answered(status, 0, answer.tableVersion());
    }
    for (ShardId shard : asked) {
      if (!notLeading.contains(shard)) {
        leads(shard, answer.brokerId());
      }
    }
  }

  /**
   * The broker's replica of {@code shard} leads (said by a describe's answer, or by leaving the shard out of a
   * roles-only answer): if the broker is the one asked about, the shard is no longer suspect.
   */
  void leads(ShardId shard, int brokerId) {
    Asked question = asked.get(shard);
    if (question != null && question.assignment().leader() == brokerId) {
      suspects.remove(shard);
    }
  }

  /**
   * The assigned leader says it does not lead. Believed at once when it names the shard's current leader and
   * epoch and no move is in flight (a move's fence is the move's business); anything else is an old report.
   *
   * @return whether the report made the shard not serving
   */
  boolean reported(ControlState state, ShardId shard, int brokerId, long epoch, NotServingReason reason) {
    if (stale(state, shard, brokerId, epoch)) {
      log.debug("Shard {}: ignoring the report of broker {} that it does not lead at epoch {}: not current", shard,
          brokerId, epoch);
      return false;
    }
    Suspect before = suspects.put(shard, new Suspect(brokerId, epoch, clock.millis(), true));
    if (before == null || !before.confirmed()) {
      confirmedByBroker.merge(brokerId, 1, Integer::sum);
      log.debug("Shard {}: broker {} reports it is assigned to lead at epoch {} but does not ({}); failing it over",
          shard, brokerId, epoch, reason);
    }
    return true;
  }

  /** The shards that may be {@link #notServing}: those with a suspect (all others are not). */
  Set<ShardId> suspected() {
    return Collections.unmodifiableSet(suspects.keySet());
  }

  /** Whether the shard's assigned leader was seen twice not leading at its current epoch, or said so itself. */
  boolean notServing(ShardAssignment a) {
    Suspect suspect = suspects.get(a.id());
    return suspect != null && suspect.confirmed() && suspect.leader() == a.leader()
        && suspect.epoch() == a.leaderEpoch();
  }

  private void logConfirmed() {
    if (!confirmedByBroker.isEmpty()) {
      log.warn("Leader check: assigned leaders that do not lead (shards per broker {}), by their own report or two"
          + " answers an interval apart; failing those shards over", confirmedByBroker);
      confirmedByBroker.clear();
    }
  }

  private static boolean stale(ControlState state, ShardId id, int leader, long epoch) {
    ShardAssignment now = state.shards().get(id);
    return now == null || now.leader() != leader || now.leaderEpoch() != epoch || state.moves().containsKey(id);
  }
}
