package io.felix.broker.control;

import io.felix.broker.control.BrokerLiveness.BrokerMember;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;

/**
 * Which cluster members this broker downs because the data plane shows their process gone: their replication
 * connection closed and stays refused ({@code PeerSuspicion#closed}). A killed broker's kernel closes its sockets
 * at once, so this downs it a fraction of a second after the kill instead of after the failure detector (about
 * 3 s) and the Split Brain Resolver's stable-after; the placement singleton, if it ran there, starts on another
 * broker that much sooner. Pure: the caller feeds it one membership snapshot and closed set per check.
 *
 * <p>A member is downed only
 * <ul>
 *   <li>in the incarnation that was a member before its connection was found closed (a broker restarted since, not
 *       yet reconnected, is a new incarnation, and the evidence is not about it), while up or weakly up (one that
 *       is leaving closes its connections on purpose), and</li>
 *   <li>when the members this broker reaches, is not suspecting, and which are up are a strict majority of the up
 *       members: a broker cut off from the others sees every connection closed, but is a minority and downs
 *       nobody (the Split Brain Resolver downs it instead).</li>
 * </ul>
 * Downing is about liveness only: a wrongly downed broker restarts (its supervisor starts it again) and rejoins as
 * a follower; two placement singletons for a while cannot both store a decision (see reference.conf,
 * felix.control.down-closed-peers) and every leadership change is fenced by epoch.
 */
final class ClosedPeerDowning {

  private final int selfId;
  /** The incarnation of each closed peer as it was a member just before the closure was seen. */
  private final Map<Integer, UniqueAddress> closedIncarnations = new HashMap<>();
  private final Set<UniqueAddress> downed = new HashSet<>();
  private Map<Integer, BrokerMember> previous = Map.of();
  private Set<Integer> previouslyClosed = Set.of();

  ClosedPeerDowning(int selfId) {
    this.selfId = selfId;
  }

  /** @return the members to down now (each incarnation once) */
  List<UniqueAddress> check(List<BrokerMember> members, Set<Integer> closed) {
    Map<Integer, BrokerMember> byId = new HashMap<>();
    members.forEach(m -> byId.put(m.brokerId(), m));
    closedIncarnations.keySet().retainAll(closed);
    for (int peer : closed) {
      // Only a closure that began since the last check is about the incarnation up at the last check: one already
      // there (a dial refused before the broker started, a restart's leftover) predates whoever joined since.
      BrokerMember before = previous.get(peer);
      if (peer != selfId && !previouslyClosed.contains(peer) && before != null && up(before)) {
        closedIncarnations.put(peer, before.incarnation());
      }
    }
    previous = byId;
    previouslyClosed = Set.copyOf(closed);
    List<BrokerMember> up = members.stream().filter(ClosedPeerDowning::up).toList();
    long vouching = up.stream().filter(m -> m.reachable() && !closed.contains(m.brokerId())).count();
    if (vouching * 2 <= up.size()) {
      return List.of();
    }
    List<UniqueAddress> toDown = new ArrayList<>();
    closedIncarnations.forEach((peer, incarnation) -> {
      BrokerMember now = byId.get(peer);
      if (now != null && up(now) && now.incarnation().equals(incarnation) && downed.add(incarnation)) {
        toDown.add(incarnation);
      }
    });
    return toDown;
  }

  private static boolean up(BrokerMember m) {
    return m.status().equals(MemberStatus.up()) || m.status().equals(MemberStatus.weaklyUp());
  }
}
