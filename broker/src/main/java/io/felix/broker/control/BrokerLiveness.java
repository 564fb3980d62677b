package io.felix.broker.control;

import io.felix.broker.assignment.BrokerRole;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.slf4j.Logger;

/**
 * Which brokers the placement singleton may count on, rebuilt from cluster-state snapshots and the brokers'
 * data-plane suspicions: runtime knowledge, not decided state (a restarted singleton learns it again from the
 * cluster). Available = a member that is up (or weakly up) and reachable, and not suspected lost by a majority of
 * the other such members' replication connections; its broker id is its role. Tracks since when each known
 * broker is lost, and which shards need a failover round because their leader is lost for the failover timeout,
 * is suspected by that majority (at once: the data plane notices a killed broker within a fraction of a second,
 * the failure detector only after several missed heartbeats), or came back as a new incarnation. No actor
 * inside: the time comes from the injected clock.
 */
final class BrokerLiveness {

  /** One cluster member as a snapshot shows it. */
  record BrokerMember(int brokerId, MemberStatus status, boolean reachable, UniqueAddress incarnation) {

    boolean available() {
      return reachable && (status.equals(MemberStatus.up()) || status.equals(MemberStatus.weaklyUp()));
    }
  }

  /** Every shard a lost broker led has a new leader: the failover of that broker is done. */
  record FailoverDone(int brokerId, long shardsLed, long millisSinceNoticed) {}

  private final ControlSettings settings;
  private final Clock clock;
  private final Logger log;
  private final SortedSet<Integer> available = new TreeSet<>();
  /** When each unreachable broker was last seen reachable (or taken to be, see {@link #refresh}). */
  private final Map<Integer, Long> lostSince = new HashMap<>();
  /** When this singleton noticed each unreachable broker gone: the start of its failover, as measured. */
  private final Map<Integer, Long> noticedLost = new HashMap<>();
  /** Shards each lost broker led when noticed; dropped once it leads none (its failover is done). */
  private final Map<Integer, Long> ledWhenLost = new HashMap<>();
  /** The incarnation of each broker id last seen up: another one for the same id means it restarted. */
  private final Map<Integer, UniqueAddress> incarnations = new HashMap<>();
  /** Shards whose leader restarted, with the epoch it led at: they fail over until a newer epoch is decided. */
  private final Map<ShardId, Long> leaderRestarted = new HashMap<>();
  /** The state {@link #leaderless} was found in, and what it found. */
  private ControlState leaderlessOf;
  private List<ShardAssignment> leaderless = List.of();
  /** The latest report of each broker: the peers its replication connections suspect lost. */
  private final Map<Integer, Set<Integer>> suspicions = new HashMap<>();
  /** Brokers lost because a majority suspects them (logged once when they became so). */
  private final Set<Integer> suspectedLost = new HashSet<>();
  private boolean membershipSeen;
  /** Until when the cluster counts as starting (see {@link #clusterStarting}); 0: it does not. */
  private long startingUntilMillis;
  /**
   * Whether every known broker has been up at once since this singleton started: the rounds then wait up to
   * felix.control.cluster-start-open-grace from that moment (once), since the last broker up still has to open its
   * replicas before it can answer a fence.
   */
  private boolean everyBrokerUpSeen;
  /** Whether most known brokers were missing at this singleton's first look. */
  private boolean mostMissingAtFirstLook;
  /** The newest assignment table version a broker held when this singleton started; -1 before any answered. */
  private long newestHeldTable = -1;

  BrokerLiveness(ControlSettings settings, Clock clock, Logger log) {
    this.settings = settings;
    this.clock = clock;
    this.log = log;
  }

  /** The brokers among the members of a Pekko cluster-state snapshot (members without a broker role are left out). */
  static List<BrokerMember> members(ClusterEvent.CurrentClusterState cluster) {
    Set<Member> unreachable = cluster.getUnreachable();
    List<BrokerMember> members = new ArrayList<>();
    for (Member member : cluster.getMembers()) {
      OptionalInt id = BrokerRole.idOf(member.getRoles());
      if (id.isPresent()) {
        members.add(new BrokerMember(id.getAsInt(), member.status(), !unreachable.contains(member),
            member.uniqueAddress()));
      }
    }
    return members;
  }

  /**
   * Takes in a membership snapshot. A broker known to {@code state} but absent from the membership the first
   * time this singleton looks was downed before it started (its old host saw it go): it counts as lost for the
   * whole failover timeout already.
   */
  void refresh(ControlState state, List<BrokerMember> members) {
    Set<Integer> inCluster = new HashSet<>();
    Set<Integer> up = new HashSet<>();
    for (BrokerMember member : members) {
      inCluster.add(member.brokerId());
      if (member.available()) {
        up.add(member.brokerId());
        noticeIncarnation(state, member.brokerId(), member.incarnation());
      }
    }
    forgetPromoted(state);
    long now = clock.millis();
    long lostForTheTimeout = now - settings.failoverTimeout().toMillis();
    Set<Integer> usable = new HashSet<>();
    for (int id : state.brokers().keySet()) {
      List<Integer> suspecting = suspecting(id, up);
      boolean suspected = !suspecting.isEmpty();
      if (up.contains(id) && !suspected) {
        usable.add(id);
        noticedLost.remove(id);
        suspectedLost.remove(id);
        if (lostSince.remove(id) != null) {
          log.info("Broker {} is reachable again", id);
        }
        ledWhenLost.remove(id);
        continue;
      }
      long led = state.leadersOn(id);
      if (!lostSince.containsKey(id)) {
        boolean downedBeforeThisSingleton = !membershipSeen && !inCluster.contains(id);
        lostSince.put(id, downedBeforeThisSingleton || suspected ? lostForTheTimeout : now);
        noticedLost.put(id, now);
        if (led > 0) {
          ledWhenLost.put(id, led);
        }
        if (!suspected) {
          log.info("Broker {} is not reachable ({} leaders); its shards fail over after {}{}", id, led,
              settings.failoverTimeout(), downedBeforeThisSingleton ? " (already out of the cluster: at once)" : "");
        }
      }
      if (suspected && suspectedLost.add(id)) {
        lostSince.merge(id, lostForTheTimeout, Math::min);
        log.info("Broker {} is suspected lost by brokers {} (their replication connections to it closed or went"
            + " silent; {} leaders): its shards fail over now", id, suspecting, led);
      }
    }
    if (!membershipSeen) {
      noticeClusterStart(state, usable.size(), now);
    } else if (startingUntilMillis > 0 && now >= startingUntilMillis) {
      startingUntilMillis = 0;
      log.info("Cluster start grace over: failover rounds promote once a majority of a shard's replicas answered");
    }
    if (startingUntilMillis > 0 && !everyBrokerUpSeen && usable.containsAll(state.brokers().keySet())) {
      everyBrokerUpSeen = true;
      startingUntilMillis = Math.max(startingUntilMillis, now + settings.clusterStartOpenGrace().toMillis());
      log.info("Every broker is up: failover rounds wait for every replica's answer for up to {} more, while the last"
          + " brokers open their replicas", settings.clusterStartOpenGrace());
    }
    membershipSeen = true;
    available.clear();
    available.addAll(usable);
  }

  /**
   * At this singleton's first look: whether the whole cluster is starting (every broker restarted) or this singleton
   * took over a running cluster is not known yet, so the cluster counts as starting until the brokers say which
   * assignment table they hold ({@link #heldTable}). Most known brokers missing is already a start on its own (no
   * answer may ever come from them).
   */
  private void noticeClusterStart(ControlState state, int up, long now) {
    int known = state.brokers().size();
    Duration grace = settings.clusterStartGrace();
    if (grace.isZero() || known < 2 || newestHeldTable > 0) {
      return;
    }
    startingUntilMillis = now + grace.toMillis();
    mostMissingAtFirstLook = up * 2 <= known;
    if (mostMissingAtFirstLook) {
      log.info("The cluster is starting ({} of {} brokers up): for up to {} a failover round waits for every"
          + " replica's answer, so that leaders are chosen over every broker", up, known, grace);
    } else if (newestHeldTable == 0) {
      logStartFromHeldTables();
    }
  }

  /**
   * Takes in the version of the assignment table a broker held before this singleton published anything (its answer
   * to the question asked of each holder listed before then). A restarted broker holds none (version 0): if none
   * holds one, every broker restarted and the cluster is starting. One that holds a table was running before this
   * singleton: it took over a running cluster, whose replicas that can answer already did, and failover rounds do not
   * wait for the others.
   */
  void heldTable(long version) {
    boolean firstAnswer = newestHeldTable < 0;
    newestHeldTable = Math.max(newestHeldTable, version);
    if (startingUntilMillis == 0) {
      return;
    }
    if (version > 0) {
      startingUntilMillis = 0;
      if (mostMissingAtFirstLook) {
        log.info("A broker holds assignment table version {}: this singleton took over a running cluster, the"
            + " cluster is not starting and failover rounds do not wait for every replica", version);
      }
    } else if (firstAnswer && !mostMissingAtFirstLook) {
      logStartFromHeldTables();
    }
  }

  /**
   * No broker answered which table it holds within the replica timeout: the first look decides alone (most known
   * brokers missing is a start).
   */
  void heldTablesUnanswered() {
    if (newestHeldTable < 0 && !mostMissingAtFirstLook) {
      startingUntilMillis = 0;
    }
  }

  private void logStartFromHeldTables() {
    log.info("The cluster is starting (the brokers up hold no assignment table: every broker restarted): for up to"
        + " {} a failover round waits for every replica's answer, so that leaders are chosen over every broker",
        settings.clusterStartGrace());
  }

  /**
   * Whether the cluster is starting: this singleton started less than felix.control.cluster-start-grace ago (or every
   * broker came up less than felix.control.cluster-start-open-grace ago, see {@link #refresh}), found
   * most brokers missing at its first look or the brokers up holding no assignment table, and no broker holds one
   * (until the first broker says, it counts as starting). Failover rounds then wait for every replica
   * ({@link FailoverRounds}).
   */
  boolean clusterStarting() {
    return startingUntilMillis > 0 && clock.millis() < startingUntilMillis;
  }

  /**
   * Takes in a broker's report of the peers its replication connections suspect lost.
   *
   * @return whether it differs from that broker's previous report
   */
  boolean suspected(int reporter, Set<Integer> suspects) {
    return !suspects.equals(suspicions.put(reporter, Set.copyOf(suspects)));
  }

  /**
   * The available brokers (other than {@code id}) whose replication connections suspect it, when they are a
   * majority of the available others; empty otherwise. A majority, so that one broker with a bad link (or a
   * wrong view) cannot take a healthy broker out; and only available reporters count, since a lost broker's last
   * word says nothing.
   */
  private List<Integer> suspecting(int id, Set<Integer> up) {
    List<Integer> others = up.stream().filter(other -> other != id).sorted().toList();
    List<Integer> suspecting = others.stream()
        .filter(other -> suspicions.getOrDefault(other, Set.of()).contains(id)).toList();
    return !others.isEmpty() && suspecting.size() * 2 > others.size() ? suspecting : List.of();
  }

  /** Brokers that are members, up and reachable, as of the last snapshot. */
  Set<Integer> available() {
    return Collections.unmodifiableSortedSet(available);
  }

  /**
   * The shards of {@code state} that may {@link #needsFailover need a failover round}: the leaderless ones, those
   * whose leader restarted, and, while a broker is lost, every shard (its leader may be the lost one). The singleton
   * checks these every progress interval: on an idle cluster that is the leaderless shards alone, not all of them.
   */
  Collection<ShardAssignment> failoverCandidates(ControlState state) {
    if (!lostSince.isEmpty()) {
      return state.shards().values();
    }
    List<ShardAssignment> candidates = new ArrayList<>(leaderless(state));
    for (ShardId id : leaderRestarted.keySet()) {
      ShardAssignment a = state.shards().get(id);
      if (a != null && a.leader() != ShardAssignment.NO_LEADER) {
        candidates.add(a);
      }
    }
    return candidates;
  }

  /** The leaderless shards of {@code state}, found once per state (an immutable fold of the events). */
  private List<ShardAssignment> leaderless(ControlState state) {
    if (state != leaderlessOf) {
      leaderless = state.shards().values().stream().filter(a -> a.leader() == ShardAssignment.NO_LEADER).toList();
      leaderlessOf = state;
    }
    return leaderless;
  }

  /**
   * Whether the shard needs a failover round: it has no leader, its leader has been lost for the failover
   * timeout, or its leader restarted (see {@link #noticeIncarnation}).
   */
  boolean needsFailover(ShardAssignment shard) {
    if (shard.leader() == ShardAssignment.NO_LEADER || leaderRestarted.containsKey(shard.id())) {
      return true;
    }
    Long lost = lostSince.get(shard.leader());
    return lost != null && clock.millis() - lost >= settings.failoverTimeout().toMillis();
  }

  /**
   * After events are stored: forgets restarted leaders whose shards have a newer epoch, and reports each lost
   * broker that no longer leads anything (its failover is done; each is reported once).
   */
  List<FailoverDone> decided(ControlState state) {
    forgetPromoted(state);
    long now = clock.millis();
    List<FailoverDone> done = new ArrayList<>();
    ledWhenLost.entrySet().removeIf(lost -> {
      if (state.leadersOn(lost.getKey()) > 0) {
        return false;
      }
      Long since = noticedLost.get(lost.getKey());
      done.add(new FailoverDone(lost.getKey(), lost.getValue(), since == null ? -1 : now - since));
      return true;
    });
    return done;
  }

  /**
   * A broker that comes back as a new incarnation within the failover timeout is never seen lost for long enough
   * to fail over, yet its replicas that led refuse to lead again at the epoch their log already holds (they may
   * have lost unflushed records their followers hold): those shards need a failover round now.
   */
  private void noticeIncarnation(ControlState state, int id, UniqueAddress incarnation) {
    UniqueAddress previous = incarnations.put(id, incarnation);
    if (previous == null || previous.equals(incarnation)) {
      return;
    }
    List<ShardId> led = new ArrayList<>();
    state.shards().values().stream().filter(a -> a.leader() == id).forEach(a -> {
      leaderRestarted.put(a.id(), a.leaderEpoch());
      led.add(a.id());
    });
    log.info("Broker {} restarted (was {}, now {}); the {} shards it led fail over: {}", id,
        previous.address(), incarnation.address(), led.size(), led);
  }

  /** A restarted leader's shard needs no more failover once a newer epoch (promotion, abort, move) is decided. */
  private void forgetPromoted(ControlState state) {
    leaderRestarted.entrySet().removeIf(mark -> {
      ShardAssignment a = state.shards().get(mark.getKey());
      return a == null || a.leaderEpoch() > mark.getValue();
    });
  }
}
