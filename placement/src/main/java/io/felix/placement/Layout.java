package io.felix.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The mutable working copy of a snapshot that a pass plans against, with every tally kept up to date as steps are
 * applied, so no decision re-scans the shards. Brokers are indexed 0..B-1 by ascending id and groups 0..G-1 by
 * name; shard {@code s} of group {@code g} is slot {@code base[g] + s}. Per-group tallies are flat arrays indexed
 * {@code g * B + b}. Moves in flight are applied as finished and marked, so they count toward the tallies and the
 * move limits, and are not moved again until {@link #finishMoves()}.
 *
 * <p>Not thread-safe; one pass (or one simulation) owns it.
 */
final class Layout {

  static final int NONE = -1;

  final PlacementSettings settings;
  final int brokerCount;
  final int[] brokerId;
  final BrokerState[] state;
  final int[] zone;
  final int[] cap;
  final int zoneCount;
  final int[] live;
  private final Map<Integer, Integer> indexOfId = new HashMap<>();

  final int groupCount;
  final Group[] group;
  final long[] groupHash;
  final int[] base;
  final int[] floor;
  final int[] ceiling;
  final int clusterShare;
  private final Map<String, Integer> indexOfGroup = new HashMap<>();

  final int shardCount;
  final int[] shardGroup;
  final int[] leader;
  final int[][] replicas;
  final int[][] inSync;
  final boolean[] inFlight;

  final int[] leadersTotal;
  final int[] leadersByGroup;
  final int[] hostedTotal;
  final int[] hostedByGroup;

  final MoveBudget budget;

  /** Shards to place or promote, in slot order; a pass leaves behind only those it could not promote. */
  private List<Integer> pendingLeaders = new ArrayList<>();
  /** Per-group spread cache and stuck marks, told of every change. */
  final GroupWatch watch;

  private Layout(ClusterSnapshot snapshot) {
    settings = snapshot.settings();
    Broker[] brokers = snapshot.brokers().toArray(Broker[]::new);
    Arrays.sort(brokers, Comparator.comparingInt(Broker::id));
    brokerCount = brokers.length;
    brokerId = new int[brokerCount];
    state = new BrokerState[brokerCount];
    zone = new int[brokerCount];
    cap = new int[brokerCount];
    Map<String, Integer> zones = new HashMap<>();
    int liveCount = 0;
    for (int b = 0; b < brokerCount; b++) {
      brokerId[b] = brokers[b].id();
      state[b] = brokers[b].state();
      zone[b] = brokers[b].zone() == null ? NONE : zones.computeIfAbsent(brokers[b].zone(), z -> zones.size());
      cap[b] = brokers[b].maxShards() == null ? NONE : brokers[b].maxShards();
      indexOfId.put(brokerId[b], b);
      if (state[b] == BrokerState.LIVE) {
        liveCount++;
      }
    }
    zoneCount = zones.size();
    live = new int[liveCount];
    for (int b = 0, i = 0; b < brokerCount; b++) {
      if (state[b] == BrokerState.LIVE) {
        live[i++] = b;
      }
    }

    group = snapshot.groups().toArray(Group[]::new);
    Arrays.sort(group, Comparator.comparing(Group::name));
    groupCount = group.length;
    groupHash = new long[groupCount];
    base = new int[groupCount];
    floor = new int[groupCount];
    ceiling = new int[groupCount];
    int total = 0;
    for (int g = 0; g < groupCount; g++) {
      indexOfGroup.put(group[g].name(), g);
      groupHash[g] = RendezvousScore.groupHash(group[g].name());
      base[g] = total;
      total += group[g].shards();
      floor[g] = liveCount == 0 ? 0 : group[g].shards() / liveCount;
      ceiling[g] = liveCount == 0 ? 0 : ceilDiv(group[g].shards(), liveCount);
    }
    shardCount = total;
    clusterShare = liveCount == 0 ? 0 : ceilDiv(total, liveCount);

    shardGroup = new int[shardCount];
    for (int g = 0; g < groupCount; g++) {
      Arrays.fill(shardGroup, base[g], base[g] + group[g].shards(), g);
    }
    leader = new int[shardCount];
    Arrays.fill(leader, NONE);
    replicas = new int[shardCount][];
    inSync = new int[shardCount][];
    inFlight = new boolean[shardCount];
    leadersTotal = new int[brokerCount];
    leadersByGroup = new int[groupCount * brokerCount];
    hostedTotal = new int[brokerCount];
    hostedByGroup = new int[groupCount * brokerCount];
    budget = new MoveBudget(settings, brokerCount);
    watch = new GroupWatch(groupCount);

    for (Assignment a : snapshot.assignments()) {
      int s = slot(a.group(), a.shard());
      replicas[s] = indexes(a.replicas());
      inSync[s] = a.inSync().equals(a.replicas()) ? null : indexes(a.inSync());
      leader[s] = a.leader() == Assignment.NO_LEADER ? NONE : broker(a.leader());
    }
    for (MoveInFlight move : snapshot.movesInFlight()) {
      int s = slot(move.group(), move.shard());
      finishInPlace(s, broker(move.from()), broker(move.to()));
      inFlight[s] = true;
      budget.count(s, broker(move.from()), broker(move.to()));
    }
    for (int s = 0; s < shardCount; s++) {
      if (replicas[s] != null) {
        int g = shardGroup[s];
        for (int b : replicas[s]) {
          hostedTotal[b]++;
          hostedByGroup[g * brokerCount + b]++;
        }
        if (leader[s] != NONE) {
          leadersTotal[leader[s]]++;
          leadersByGroup[g * brokerCount + leader[s]]++;
        }
      }
      if (replicas[s] == null || leader[s] == NONE || state[leader[s]] == BrokerState.DOWN) {
        pendingLeaders.add(s);
      }
    }
  }

  static Layout of(ClusterSnapshot snapshot) {
    return new Layout(snapshot);
  }

  int broker(int id) {
    return indexOfId.get(id);
  }

  Integer brokerOrNull(int id) {
    return indexOfId.get(id);
  }

  List<Integer> pendingLeaders() {
    return pendingLeaders;
  }

  void setPendingLeaders(List<Integer> shards) {
    pendingLeaders = shards;
  }

  boolean anyDrainingHostsShards() {
    for (int b = 0; b < brokerCount; b++) {
      if (state[b] == BrokerState.DRAINING && hostedTotal[b] > 0) {
        return true;
      }
    }
    return false;
  }

  /** Most minus fewest leaders of the group over live brokers. */
  int groupSpread(int g) {
    return watch.spread(g, leadersByGroup, g * brokerCount, live);
  }

  boolean hasShard(String groupName, int shard) {
    Integer g = indexOfGroup.get(groupName);
    return g != null && shard >= 0 && shard < group[g].shards();
  }

  int slot(String groupName, int shard) {
    return base[indexOfGroup.get(groupName)] + shard;
  }

  int shardNumber(int s) {
    return s - base[shardGroup[s]];
  }

  boolean isLive(int b) {
    return state[b] == BrokerState.LIVE;
  }

  boolean hasRoom(int b) {
    return cap[b] == NONE || hostedTotal[b] < cap[b];
  }

  boolean holds(int s, int b) {
    for (int r : replicas[s]) {
      if (r == b) {
        return true;
      }
    }
    return false;
  }

  int groupLeaders(int g, int b) {
    return leadersByGroup[g * brokerCount + b];
  }

  int groupReplicas(int g, int b) {
    return hostedByGroup[g * brokerCount + b];
  }

  long score(int s, int b) {
    return RendezvousScore.score(seed(s), brokerId[b]);
  }

  long seed(int s) {
    return RendezvousScore.shardSeed(groupHash[shardGroup[s]], shardNumber(s));
  }

  long score(long seed, int b) {
    return RendezvousScore.score(seed, brokerId[b]);
  }

  /** Distinct zones among a replica set, optionally with {@code out} replaced by {@code in}. */
  int zonesOf(int[] set, int out, int in) {
    if (zoneCount == 0) {
      return 0;
    }
    long seen = 0;
    int other = 0;
    for (int r : set) {
      int b = r == out ? in : r;
      int z = zone[b];
      if (z == NONE) {
        continue;
      }
      if (z < 64) {
        seen |= 1L << z;
      } else {
        other++;
      }
    }
    // More than 64 zones is unlikely; counting them as distinct errs towards allowing no move that loses a zone.
    return Long.bitCount(seen) + other;
  }

  // --- applying steps; every method keeps the tallies exact ---

  void place(int s, int leaderBroker, int[] set) {
    int g = shardGroup[s];
    replicas[s] = set;
    for (int b : set) {
      if (cap[b] != NONE) {
        watch.capChanged();
      }
      hostedTotal[b]++;
      hostedByGroup[g * brokerCount + b]++;
    }
    setLeader(s, leaderBroker);
  }

  /** Sets the leader (a promotion or placement); like every step, it leaves the shard's replicas all in sync. */
  void setLeader(int s, int b) {
    int g = shardGroup[s];
    inSync[s] = null;
    watch.changed(g);
    if (leader[s] != NONE) {
      leadersTotal[leader[s]]--;
      leadersByGroup[g * brokerCount + leader[s]]--;
    }
    leader[s] = b;
    if (b != NONE) {
      leadersTotal[b]++;
      leadersByGroup[g * brokerCount + b]++;
    }
  }

  /** Applies a move as if finished and counts it in flight. */
  void move(int s, int from, int to) {
    int g = shardGroup[s];
    watch.changed(g);
    if (!holds(s, to)) {
      if (cap[from] != NONE || cap[to] != NONE) {
        watch.capChanged();
      }
      hostedTotal[from]--;
      hostedByGroup[g * brokerCount + from]--;
      hostedTotal[to]++;
      hostedByGroup[g * brokerCount + to]++;
    }
    int oldLeader = leader[s];
    if (oldLeader != NONE) {
      leadersTotal[oldLeader]--;
      leadersByGroup[g * brokerCount + oldLeader]--;
    }
    finishInPlace(s, from, to);
    if (leader[s] != NONE) {
      leadersTotal[leader[s]]++;
      leadersByGroup[g * brokerCount + leader[s]]++;
    }
    inFlight[s] = true;
    budget.count(s, from, to);
  }

  private void finishInPlace(int s, int from, int to) {
    inSync[s] = null;
    if (holds(s, to)) {
      leader[s] = to;
      return;
    }
    int[] set = replicas[s].clone();
    for (int i = 0; i < set.length; i++) {
      if (set[i] == from) {
        set[i] = to;
      }
    }
    replicas[s] = set;
    if (leader[s] == from) {
      leader[s] = to;
    }
  }

  /** Whether a move between the two brokers fits the limits, and if not which limit holds it back. */
  MoveBudget.Limit limitFor(int from, int to) {
    return budget.limitFor(from, to);
  }

  boolean clusterLimitReached() {
    return budget.clusterLimitReached();
  }

  /** Every move in flight completes: between passes of a simulation. */
  void finishMoves() {
    for (int s : budget.finishAll()) {
      inFlight[s] = false;
      watch.changed(shardGroup[s]);
    }
  }

  /** The step for a move just applied with {@link #move}: it carries the shard's new leader and replica set. */
  Step moveStep(int s, Reason reason, int from, int to) {
    return new Step(Action.MOVE, reason, group[shardGroup[s]].name(), shardNumber(s), brokerId[from], brokerId[to],
        leader[s] == NONE ? Assignment.NO_LEADER : brokerId[leader[s]], ids(replicas[s]));
  }

  /** The broker ids of a set, as an immutable list (which {@link Step} and {@link Assignment} keep as is). */
  List<Integer> ids(int[] set) {
    Integer[] ids = new Integer[set.length];
    for (int i = 0; i < set.length; i++) {
      ids[i] = brokerId[set[i]];
    }
    return List.of(ids);
  }

  private int[] indexes(List<Integer> ids) {
    int[] out = new int[ids.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = broker(ids.get(i));
    }
    return out;
  }

  /** The layout as a snapshot (moves in flight shown as finished, none left in flight). */
  ClusterSnapshot toSnapshot(ClusterSnapshot original) {
    List<Assignment> assignments = new ArrayList<>();
    for (int s = 0; s < shardCount; s++) {
      if (replicas[s] != null) {
        assignments.add(new Assignment(group[shardGroup[s]].name(), shardNumber(s),
            leader[s] == NONE ? Assignment.NO_LEADER : brokerId[leader[s]], ids(replicas[s]),
            inSync[s] == null ? null : ids(inSync[s])));
      }
    }
    return new ClusterSnapshot(original.brokers(), original.groups(), assignments, List.of(), original.settings());
  }

  static int ceilDiv(int a, int b) {
    return (a + b - 1) / b;
  }
}
