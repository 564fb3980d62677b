package io.felix.broker.control;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.placement.Planner;
import io.felix.placement.Step;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Failover rounds, one per shard that needs a new leader: fence first, then choose, as Raft does. Every reachable
 * replica is fenced at {@code epoch = max(leader epoch, fenced move's epoch, any epoch a replica reported having
 * promised) + 1}. Once a majority of the replica set has answered that fence (the lost leader counts as silent;
 * a replica recovering lost data counts for nothing), no old leader can commit anything, and the
 * answering replicas with the greatest (last epoch, log end) hold every committed record (any committed record
 * is on a majority, which meets the answering majority). The library's promotion rule chooses among those.
 *
 * <p>It returns the events the answers justify and never changes decided state itself (the caller persists
 * them). Which shards need a round is the caller's to say: a leader lost for the failover timeout or restarted
 * ({@link BrokerLiveness}), a fenced move past its timeout ({@link MoveProgress}).
 *
 * <table>
 *   <caption>The round of one shard</caption>
 *   <tr><th>round</th><th>when</th><th>then</th></tr>
 *   <tr><td>none</td><td>the shard needs a failover</td><td>start a round at the next epoch: fence every
 *       reachable replica (a restarted or fenced leader too: its log may hold the most)</td></tr>
 *   <tr><td>fencing at e</td><td>the next epoch is no longer e</td><td>restart at the new epoch: drop the answers,
 *       fence every reachable replica</td></tr>
 *   <tr><td>fencing at e</td><td>the replica timeout passed since the round (or its last asking) started</td>
 *       <td>ask again at e: keep the answers that vouch from brokers still available, fence the other available
 *       replicas again ({@link #askAgain})</td></tr>
 *   <tr><td>fencing at e</td><td>an answer reports a promise above e</td><td>restart above it: a replica never
 *       goes back on a promise, so a round below it could not be answered</td></tr>
 *   <tr><td>fencing at e</td><td>fewer than a quorum answered the fence at e with a hosted, sound replica that is
 *       not recovering (one that lost its data may lack committed records, so it vouches for nothing)</td>
 *       <td>wait</td></tr>
 *   <tr><td>fencing at e</td><td>every replica of the set answered, each recovering with an empty log (a new
 *       shard whose first leader died before its followers' first fetch)</td><td>as for a quorum: no record is held
 *       anywhere, and waiting would leave the shard without a leader for ever</td></tr>
 *   <tr><td>fencing at e</td><td>every replica of the set answered, some not recovering, and each recovering one with
 *       an empty log (a new shard whose first leader took writes and restarted before its followers' first
 *       fetch)</td><td>as for a quorum among those not recovering: whatever survives anywhere is on them, and
 *       waiting brings nothing back (one WARN line per progress, with the count)</td></tr>
 *   <tr><td>fencing at e</td><td>a quorum answered</td><td>{@link MoveAborted} at e if a move was in flight,
 *       then {@link LeaderPromoted} at e of the replica the library's rule chooses; the round ends</td></tr>
 *   <tr><td>fencing at e</td><td>a quorum answered but no answering replica may lead</td><td>warn; after the
 *       replica timeout the round asks again</td></tr>
 *   <tr><td>any</td><td>the shard no longer needs a failover (its leader is back)</td><td>the round goes on: the
 *       replicas it fenced follow no leader below its epoch ({@link #unfinished})</td></tr>
 *   <tr><td>any</td><td>the shard has a leader at the round's epoch or above (promoted, or moved meanwhile), or is
 *       gone</td><td>the round is dropped</td></tr>
 * </table>
 */
final class FailoverRounds {

  /**
   * A round's fence epoch, when it (last) fenced, and the answers to this fence only: one at another epoch, or from
   * before the round, proves nothing.
   *
   * @param asked how many times the fence was sent again (see {@link #askAgainAfter}); 0 for a new round
   */
  private record Round(long epoch, long startedAtMillis, Map<Integer, ReplicaStatus> fenced, int asked) {}

  /** At most this many replica timeouts between two fences of one round (see {@link #askAgainAfter}). */
  static final int MAX_ASK_BACKOFF = 4;

  private final ProbeContext context;
  private final Map<ShardId, Round> rounds = new HashMap<>();
  /** Per shard with a round, the highest epoch a replica reported promising: the next round goes above it. */
  private final Map<ShardId, Long> promised = new HashMap<>();
  /** The shards of this progress call ready without a quorum of replicas that can vouch (see {@link #quorum}). */
  private final List<ShardId> withoutQuorum = new ArrayList<>();
  /** The shards of this progress call whose every replica answered with an empty log (see {@link #quorum}). */
  private final List<ShardId> emptyEverywhere = new ArrayList<>();

  FailoverRounds(ProbeContext context) {
    this.context = context;
  }

  /** A replica's answer to a fence ({@code fenceEpoch} > 0) or describe (0); kept when it answers a round. */
  void answered(ReplicaStatus status, long fenceEpoch) {
    Round round = rounds.get(status.id());
    if (round == null) {
      return;
    }
    // An answer to this round's fence reports the round's epoch as promised; more means an earlier promise.
    if (status.promisedEpoch() > round.epoch()) {
      promised.merge(status.id(), status.promisedEpoch(), Math::max);
    }
    if (round.epoch() == fenceEpoch) {
      round.fenced().put(status.brokerId(), status);
    }
  }

  /**
   * @param due the shards that need a failover round; rounds of other shards are dropped
   * @return the events the answers so far justify, in the order of the shards
   */
  List<PlacementEvent> progress(ControlState state, Set<Integer> available, Set<ShardId> due) {
    return progress(state, available, due, false);
  }

  /**
   * As {@link #progress(ControlState, Set, Set)}; with {@code waitForEveryReplica} (the cluster is starting, see
   * {@link BrokerLiveness#clusterStarting}) a round promotes only once every replica of its set answered, so that the
   * promotions can spread leaders over every broker rather than over the first ones up, and it neither starts nor
   * asks again before every replica's broker is available.
   */
  List<PlacementEvent> progress(ControlState state, Set<Integer> available, Set<ShardId> due,
      boolean waitForEveryReplica) {
    // The due shards and those with a round, found once (see #assignmentsOf). With a 10,000-shard cluster start
    // every shard has a round and a pass runs after each batch of answers; sorting them, looking each up and finding
    // the unfinished rounds in a scan of their own made up a third of the singleton's time sampled then (2026-12-07).
    Set<ShardId> candidates = new HashSet<>(due);
    candidates.addAll(rounds.keySet());
    Map<ShardId, ShardAssignment> found = assignmentsOf(state, candidates);
    rounds.keySet().removeIf(id -> !found.containsKey(id)); // their shards are gone
    promised.keySet().removeIf(id -> !found.containsKey(id));
    long now = context.clock().millis();
    List<Ready> ready = new ArrayList<>();
    int started = 0;
    int askedAgain = 0;
    int waiting = 0;
    Set<Integer> fencedBrokers = new TreeSet<>();
    for (ShardAssignment a : found.values()) {
      ShardId id = a.id();
      if (!due.contains(id) && !unfinished(rounds.get(id), a)) {
        rounds.remove(id); // not due, and its round ended (see #unfinished)
        promised.remove(id);
        continue;
      }
      MoveRecord move = state.moves().get(id);
      long epoch = Math.max(Math.max(a.leaderEpoch(), move == null ? 0 : move.fenceEpoch()),
          promised.getOrDefault(id, 0L)) + 1;
      if (waitForEveryReplica && !available.containsAll(a.replicas())) {
        // It cannot promote before every replica answered: fencing the others now, and again every replica timeout
        // until the last broker is up, only loads the brokers and the singleton while they start.
        waiting++;
        continue;
      }
      Round round = rounds.get(id);
      if (round == null || round.epoch() != epoch) {
        rounds.put(id, new Round(epoch, now, new HashMap<>(), 0));
        List<Integer> fencing = a.replicas().stream().filter(available::contains).toList();
        fencing.forEach(b -> context.probe().fence(b, id, epoch));
        fencedBrokers.addAll(fencing);
        started++;
        context.log().debug("Shard {}: failover round, fencing replicas {} at epoch {} (leader {})", id, fencing,
            epoch, a.leader());
        continue;
      }
      if (now - round.startedAtMillis() > askAgainAfter(round)) {
        round = askAgain(a, round, available, now, fencedBrokers);
        askedAgain++;
      }
      Optional<Ready> quorum = waitForEveryReplica && !round.fenced().keySet().containsAll(a.replicas())
          ? Optional.empty() : quorum(a, round);
      if (quorum.isPresent()) {
        ready.add(quorum.get());
      } else {
        waiting++;
      }
    }
    if (started > 0 || askedAgain > 0) {
      context.log().info("Failover: {} shards start a round, {} ask again the replicas that did not vouch in time"
          + " (fencing replicas on brokers {}); {} wait for fence answers, {} have a quorum", started, askedAgain,
          fencedBrokers, waiting, ready.size());
    }
    if (!emptyEverywhere.isEmpty()) {
      // One line per pass, not per shard: a new stream whose leaders' broker stalled before the followers' first
      // fetch ends here for thousands of shards at once (2,656 lines in one pass, 2026-12-07).
      context.log().info("Failover: {} shards get a leader though no replica caught up with one yet: every replica"
          + " answered with an empty log, so no record is held anywhere ({})", emptyEverywhere.size(),
          firstFive(emptyEverywhere));
      emptyEverywhere.clear();
    }
    if (!withoutQuorum.isEmpty()) {
      context.log().warn("Failover: {} shards get a leader without a majority that can vouch for it: every replica"
          + " answered, and the others hold nothing (they never caught up with a leader, or lost their data); records"
          + " committed only on replicas that lost their data cannot come back ({})", withoutQuorum.size(),
          firstFive(withoutQuorum));
      withoutQuorum.clear();
    }
    // Promotions are chosen one after another, each counting toward its broker: in shard order (as found), so that
    // the same answers always give the same leaders.
    return ready.isEmpty() ? List.of() : promote(state, available, ready, now);
  }

  /** Shards named in a line of the log: the first five, and "and more" after them. */
  private static String firstFive(List<ShardId> shards) {
    return shards.size() <= 5 ? shards.toString() : shards.subList(0, 5) + " and more";
  }

  /**
   * The assignments of {@code ids} that {@code state} has, in shard order. Many of them (a cluster start's rounds)
   * are found in one walk over every shard with a hash look-up each, not with a look-up each in the sorted map of
   * shards, which costs more than the walk: fourteen comparisons deep for 10,000 shards, on nodes that are rarely in
   * the cache.
   */
  private static Map<ShardId, ShardAssignment> assignmentsOf(ControlState state, Set<ShardId> ids) {
    Map<ShardId, ShardAssignment> found = new LinkedHashMap<>();
    if (ids.size() * 8L > state.shards().size()) {
      for (ShardAssignment a : state.shards().values()) {
        if (ids.contains(a.id())) {
          found.put(a.id(), a);
        }
      }
    } else {
      for (ShardId id : new TreeSet<>(ids)) {
        ShardAssignment a = state.shards().get(id);
        if (a != null) {
          found.put(id, a);
        }
      }
    }
    return found;
  }

  /**
   * The round of {@code a} after its wait without a promotion ({@link #askAgainAfter}): the same epoch, its clock restarted, the
   * answers that vouch kept (a fenced replica's log cannot grow before a leader at the round's epoch, nor shrink
   * while its broker stays available: a broker that restarted was unavailable meanwhile, and its answers are dropped),
   * and the fence sent again to every other available replica (added to {@code fencedBrokers}): one that did not
   * answer (its broker busy opening thousands of logs, or the question lost) or answered without vouching (not hosted
   * yet, recovering, failed). Dropping every answer instead had a 10,000-shard cluster start only ever promote the
   * shards whose three answers all came within one replica timeout (measured 2026-12-07: 87 of 10,000 in ten
   * seconds).
   */
  private Round askAgain(ShardAssignment a, Round round, Set<Integer> available, long now,
      Set<Integer> fencedBrokers) {
    Map<Integer, ReplicaStatus> vouching = new HashMap<>();
    round.fenced().forEach((broker, status) -> {
      if (available.contains(broker) && vouches(status)) {
        vouching.put(broker, status);
      }
    });
    Round again = new Round(round.epoch(), now, vouching, round.asked() + 1);
    rounds.put(a.id(), again);
    for (int broker : a.replicas()) {
      if (available.contains(broker) && !vouching.containsKey(broker)) {
        context.probe().fence(broker, a.id(), round.epoch());
        fencedBrokers.add(broker);
      }
    }
    context.log().debug("Shard {}: failover round at epoch {} past the replica timeout; kept the answers of {}, fencing"
        + " the other available replicas again", a.id(), round.epoch(), vouching.keySet());
    return again;
  }

  /**
   * How long a round waits for its answers before it fences again: the replica timeout, doubled at each time it asked
   * again, up to {@value #MAX_ASK_BACKOFF} times. Answers that are slow come from replicas still opening their logs or
   * sit in this singleton's own inbox; asking those again every replica timeout only multiplied the answers (measured
   * 2026-12-07: thousands of rounds asked again every 2 s during a 10,000-shard cluster start, and 192,727 replica
   * statuses alive at once on the singleton's host). A round's first fence is not delayed, and a replica that opened
   * meanwhile answers the next one at once, at most four replica timeouts later.
   */
  private long askAgainAfter(Round round) {
    long times = Math.min(1L << Math.min(round.asked(), 30), MAX_ASK_BACKOFF);
    return context.settings().replicaTimeout().toMillis() * times;
  }

  /** An answer that counts toward a quorum: a hosted, sound replica that is not recovering lost data. */
  private static boolean vouches(ReplicaStatus status) {
    return status.hosted() && !status.failed() && !status.recovering();
  }

  /**
   * What the rounds under way still lack, per broker: replicas that have not answered their round's fence, and those
   * that answered without vouching (not hosted, failed, recovering). One line for the log when a cluster start's
   * grace ends, to show which broker the rounds waited for.
   */
  String waitingFor(ControlState state) {
    Map<Integer, Integer> unanswered = new java.util.TreeMap<>();
    Map<Integer, Integer> notVouching = new java.util.TreeMap<>();
    rounds.forEach((id, round) -> {
      ShardAssignment a = state.shards().get(id);
      if (a == null) {
        return;
      }
      for (int broker : a.replicas()) {
        ReplicaStatus answer = round.fenced().get(broker);
        if (answer == null) {
          unanswered.merge(broker, 1, Integer::sum);
        } else if (!vouches(answer)) {
          notVouching.merge(broker, 1, Integer::sum);
        }
      }
    });
    return rounds.size() + " rounds under way; replicas without an answer per broker " + unanswered
        + ", answered without vouching per broker " + notVouching;
  }

  /**
   * The shards whose round fenced replicas and has not ended: no leader at its epoch or above yet. Such a round goes
   * on even when its shard is no longer due (its leader came back): the replicas it fenced promised its epoch and
   * follow no leader below it, so the shard is stuck until a leader at a new epoch (measured 2026-12-06: a broker
   * suspected for a second during a 10,000-shard creation left 3,100 shards unwritable for minutes when the rounds
   * were dropped). The leader that came back is fenced with the others and may be chosen again.
   */
  Set<ShardId> unfinished(ControlState state) {
    Set<ShardId> unfinished = new HashSet<>();
    assignmentsOf(state, rounds.keySet()).forEach((id, a) -> {
      if (unfinished(rounds.get(id), a)) {
        unfinished.add(id);
      }
    });
    return unfinished;
  }

  private static boolean unfinished(Round round, ShardAssignment a) {
    return round != null && a.leaderEpoch() < round.epoch();
  }

  /**
   * Whether a round's answers may decide yet: a quorum vouches, or every replica of the set answered (the cases of an
   * empty log). Counted without building anything: a pass asks this of every round waiting for its answers, and with
   * the lists built first that was a ninth of what the singleton's host allocated while 3,333 shards of a new
   * 10,000-shard stream failed over (JFR, 2026-12-07).
   */
  private static boolean canDecide(ShardAssignment a, Round round) {
    int vouching = 0;
    for (ReplicaStatus r : round.fenced().values()) {
      vouching += vouches(r) ? 1 : 0;
    }
    return vouching >= a.quorumSize() || round.fenced().keySet().containsAll(a.replicas());
  }

  /** A shard whose round has its quorum: the replicas that may lead (those holding the most) and the best log. */
  private record Ready(ShardAssignment assignment, Round round, Set<Integer> inSync, ReplicaStatus best, int fenced) {}

  private Optional<Ready> quorum(ShardAssignment a, Round round) {
    if (!canDecide(a, round)) {
      return Optional.empty();
    }
    List<ReplicaStatus> sound = round.fenced().values().stream().filter(r -> r.hosted() && !r.failed()).toList();
    List<ReplicaStatus> fenced = sound.stream().filter(FailoverRounds::vouches).toList();
    if (fenced.size() < a.quorumSize()) {
      if (everyReplicaAnsweredEmpty(a, sound)) {
        // No replica can vouch, but none holds anything either: no record survives anywhere that waiting could
        // bring back (a new shard whose first leader died before its followers' first fetch, say). Waiting would
        // leave the shard without a leader for ever; the promoted replica leads provisionally (see LeadRule).
        emptyEverywhere.add(a.id());
        context.log().debug("Shard {}: every replica {} answered the fence at epoch {} with an empty log", a.id(),
            a.replicas(), round.epoch());
        fenced = sound;
      } else if (fenced.isEmpty() || !everyOtherAnsweredEmpty(a, sound)) {
        return Optional.empty();
      } else {
        // Every replica answered, and those that cannot vouch (they never caught up with a leader, or lost their
        // data) hold nothing: whatever survives anywhere is on the others, and waiting brings nothing back. A new
        // shard whose first leader took writes and restarted before its followers' first fetch ends here.
        withoutQuorum.add(a.id());
        context.log().debug("Shard {}: every replica {} answered the fence at epoch {}; only {} hold records and"
            + " can vouch, the others hold nothing: the best of them is promoted", a.id(), a.replicas(),
            round.epoch(), fenced.stream().map(ReplicaStatus::brokerId).toList());
      }
    }
    ReplicaStatus best = fenced.stream().max(ReplicaStatus::compareLog).orElseThrow();
    Set<Integer> inSync = fenced.stream().filter(r -> r.compareLog(best) == 0).map(ReplicaStatus::brokerId)
        .collect(Collectors.toSet());
    return Optional.of(new Ready(a, round, inSync, best, fenced.size()));
  }

  /**
   * Chooses the leaders of every shard that has its quorum in one pass of the library's promotion rule, over one
   * layout where these shards are leaderless and their moves undone: the rule never re-chooses the leader it
   * replaces nor a move's destination (shown as leader), yet a restarted or fenced leader, or the destination, may be
   * the only replica holding every committed record. Each promotion counts toward its broker before the next.
   */
  private List<PlacementEvent> promote(ControlState state, Set<Integer> available, List<Ready> ready, long now) {
    Set<ShardId> leaderless = ready.stream().map(r -> r.assignment().id()).collect(Collectors.toSet());
    List<Planner.Promotion> asked = ready.stream()
        .map(r -> new Planner.Promotion(r.assignment().id().stream(), r.assignment().id().shard(), r.inSync()))
        .toList();
    List<Optional<Step>> steps = Planner.promoteAll(
        PlacementSnapshots.withLeaderless(state, available, context.settings(), leaderless), asked);
    List<PlacementEvent> events = new ArrayList<>();
    for (int i = 0; i < ready.size(); i++) {
      Ready r = ready.get(i);
      ShardAssignment a = r.assignment();
      Optional<Step> step = steps.get(i);
      if (step.isEmpty()) {
        context.log().warn("Shard {} has no live replica among {} holding every committed record; it stays down",
            a.id(), r.inSync());
        continue;
      }
      rounds.remove(a.id());
      promised.remove(a.id());
      boolean leaderReachable = available.contains(a.leader());
      long epoch = r.round().epoch();
      if (state.moves().containsKey(a.id())) {
        events.add(new MoveAborted(a.id(), epoch, leaderReachable
            ? "fenced for over " + context.settings().moveFenceTimeout().toMillis() + " ms, or leader " + a.leader()
                + " restarted"
            : "leader " + a.leader() + " was lost", now));
      }
      events.add(new LeaderPromoted(a.id(), step.get().to(), epoch, a.leader()));
      context.log().debug(
          "Shard {}: leader {} {}; {} of {} replicas fenced at epoch {}, broker {} promoted (log end {}, last epoch {})",
          a.id(), a.leader(), leaderReachable ? "restarted, does not serve, or its fenced move timed out" : "lost",
          r.fenced(), a.replicas().size(), epoch, step.get().to(), r.best().logEndOffset(), r.best().lastEpoch());
    }
    return events;
  }

  /**
   * Whether every replica of the set answered this round and each that cannot vouch (recovering) holds nothing: an
   * empty log that never held a record.
   */
  private static boolean everyOtherAnsweredEmpty(ShardAssignment a, List<ReplicaStatus> answers) {
    return everyReplicaAnswered(a, answers) && answers.stream().filter(ReplicaStatus::recovering).allMatch(
        FailoverRounds::neverHeldARecord);
  }

  /** Whether every replica of the set answered this round, each with a log that never held a record. */
  private static boolean everyReplicaAnsweredEmpty(ShardAssignment a, List<ReplicaStatus> answers) {
    return everyReplicaAnswered(a, answers) && answers.stream().allMatch(FailoverRounds::neverHeldARecord);
  }

  private static boolean everyReplicaAnswered(ShardAssignment a, List<ReplicaStatus> answers) {
    return answers.stream().map(ReplicaStatus::brokerId).collect(Collectors.toSet()).containsAll(a.replicas());
  }

  private static boolean neverHeldARecord(ReplicaStatus r) {
    return r.logEndOffset() == 0 && r.lastEpoch() < 0;
  }
}
