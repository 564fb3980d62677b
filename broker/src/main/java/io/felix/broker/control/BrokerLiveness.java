package io.felix.broker.control;

import io.felix.broker.assignment.BrokerRole;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.time.Clock;
import java.util.ArrayList;
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
 * Which brokers the placement singleton may count on, rebuilt from cluster-state snapshots: runtime knowledge,
 * not decided state (a restarted singleton learns it again from the cluster). Available = a member that is up
 * (or weakly up) and reachable; its broker id is its role. Tracks since when each known broker is lost, and
 * which shards need a failover round because their leader is lost for the failover timeout or came back as a
 * new incarnation. No actor inside: the time comes from the injected clock.
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
  private boolean membershipSeen;

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
    for (int id : state.brokers().keySet()) {
      if (up.contains(id)) {
        noticedLost.remove(id);
        if (lostSince.remove(id) != null) {
          log.info("Broker {} is reachable again", id);
        }
        ledWhenLost.remove(id);
      } else if (!lostSince.containsKey(id)) {
        boolean downedBeforeThisSingleton = !membershipSeen && !inCluster.contains(id);
        lostSince.put(id, downedBeforeThisSingleton ? now - settings.failoverTimeout().toMillis() : now);
        noticedLost.put(id, now);
        long led = state.leadersOn(id);
        if (led > 0) {
          ledWhenLost.put(id, led);
        }
        log.info("Broker {} is not reachable ({} leaders); its shards fail over after {}{}", id, led,
            settings.failoverTimeout(), downedBeforeThisSingleton ? " (already out of the cluster: at once)" : "");
      }
    }
    membershipSeen = true;
    available.clear();
    available.addAll(up);
  }

  /** Brokers that are members, up and reachable, as of the last snapshot. */
  Set<Integer> available() {
    return Collections.unmodifiableSortedSet(available);
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
