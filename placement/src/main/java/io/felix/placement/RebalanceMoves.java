package io.felix.placement;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Stream moves, then (only if no group wanted one this pass) cluster moves, as described on {@link Planner}.
 * Every move goes from a broker leading at least two more (of the group, or overall) to one leading fewer, so each
 * strictly lowers a sum of squared counts and no two moves of placement can undo each other.
 */
final class RebalanceMoves {

  private enum Outcome {
    MOVED,
    WAITING,
    CLUSTER_LIMIT,
    STUCK
  }

  private final Layout layout;
  private final List<Step> steps;
  private final boolean streamAware;

  RebalanceMoves(Layout layout, List<Step> steps) {
    this.layout = layout;
    this.steps = steps;
    this.streamAware = layout.settings.strategy() == Strategy.STREAM_AWARE;
  }

  void plan() {
    if (layout.live.length < 2) {
      return;
    }
    boolean streamWanted = streamAware && streamMoves();
    if (!streamWanted) {
      clusterMoves();
    }
  }

  /** Plans stream moves group by group; true if any group moved or waits for a limit. */
  private boolean streamMoves() {
    boolean wanted = false;
    for (int g = 0; g < layout.groupCount; g++) {
      while (layout.groupSpread(g) >= 2 && !layout.watch.knownStuck(g)) {
        if (layout.clusterLimitReached()) {
          return true;
        }
        Outcome outcome = streamMove(g);
        if (outcome == Outcome.STUCK) {
          layout.watch.markStuck(g);
          break;
        }
        wanted = true;
        if (outcome == Outcome.CLUSTER_LIMIT) {
          return true;
        }
        if (outcome == Outcome.WAITING) {
          break;
        }
      }
    }
    return wanted;
  }

  private Outcome streamMove(int g) {
    // The best pair usually has a shard to hand over: find it in one scan and sort only when it has none.
    int giver = Layout.NONE;
    int receiver = Layout.NONE;
    for (int b : layout.live) {
      if (giver == Layout.NONE || layout.groupLeaders(g, b) > layout.groupLeaders(g, giver)
          || (layout.groupLeaders(g, b) == layout.groupLeaders(g, giver)
              && layout.leadersTotal[b] > layout.leadersTotal[giver])) {
        giver = b;
      }
      if (receiver == Layout.NONE || layout.groupLeaders(g, b) < layout.groupLeaders(g, receiver)
          || (layout.groupLeaders(g, b) == layout.groupLeaders(g, receiver)
              && layout.leadersTotal[b] < layout.leadersTotal[receiver])) {
        receiver = b;
      }
    }
    int first = shardOf(g, giver, receiver, Layout.NONE);
    if (first != Layout.NONE) {
      return tryMove(first, giver, receiver, Reason.STREAM);
    }
    Integer[] givers = sortedLive(Comparator.<Integer>comparingInt(b -> -layout.groupLeaders(g, b))
        .thenComparingInt(b -> -layout.leadersTotal[b]));
    Integer[] receivers = sortedLive(Comparator.<Integer>comparingInt(b -> layout.groupLeaders(g, b))
        .thenComparingInt(b -> layout.leadersTotal[b]));
    for (int from : givers) {
      if (layout.groupLeaders(g, from) - layout.groupLeaders(g, receivers[0]) < 2) {
        break;
      }
      for (int to : receivers) {
        if (layout.groupLeaders(g, from) - layout.groupLeaders(g, to) < 2) {
          break;
        }
        int s = shardOf(g, from, to, Layout.NONE);
        if (s != Layout.NONE) {
          return tryMove(s, from, to, Reason.STREAM);
        }
      }
    }
    return Outcome.STUCK;
  }

  private void clusterMoves() {
    while (!layout.clusterLimitReached()) {
      int giver = Layout.NONE;
      int receiver = Layout.NONE;
      for (int b : layout.live) {
        if (giver == Layout.NONE || layout.leadersTotal[b] > layout.leadersTotal[giver]) {
          giver = b;
        }
        if (receiver == Layout.NONE || layout.leadersTotal[b] < layout.leadersTotal[receiver]) {
          receiver = b;
        }
      }
      if (layout.leadersTotal[giver] - layout.leadersTotal[receiver] < 2) {
        return;
      }
      int first = clusterShard(giver, receiver);
      if (first != Layout.NONE) {
        if (tryMove(first, giver, receiver, Reason.CLUSTER) != Outcome.MOVED) {
          return;
        }
        continue;
      }
      Integer[] givers = sortedLive(Comparator.comparingInt(b -> -layout.leadersTotal[b]));
      Integer[] receivers = sortedLive(Comparator.comparingInt(b -> layout.leadersTotal[b]));
      Outcome outcome = Outcome.STUCK;
      search:
      for (int from : givers) {
        if (layout.leadersTotal[from] - layout.leadersTotal[receivers[0]] < 2) {
          break;
        }
        for (int to : receivers) {
          if (layout.leadersTotal[from] - layout.leadersTotal[to] < 2) {
            break;
          }
          int s = clusterShard(from, to);
          if (s != Layout.NONE) {
            outcome = tryMove(s, from, to, Reason.CLUSTER);
            break search;
          }
        }
      }
      if (outcome != Outcome.MOVED) {
        return;
      }
    }
  }

  /** A shard the giver leads that the receiver may take: transfers first, then the first copy allowed. */
  private int clusterShard(int giver, int receiver) {
    int firstCopy = Layout.NONE;
    for (int g = 0; g < layout.groupCount; g++) {
      int giverLeads = layout.groupLeaders(g, giver);
      if (giverLeads == 0 || (streamAware && giverLeads <= layout.groupLeaders(g, receiver))) {
        continue;
      }
      int s = shardOf(g, giver, receiver, firstCopy);
      if (s != Layout.NONE && layout.holds(s, receiver)) {
        return s;
      }
      if (firstCopy == Layout.NONE) {
        firstCopy = s;
      }
    }
    return firstCopy;
  }

  /**
   * The first shard of the group led by the giver whose replica set holds the receiver; failing that the first
   * whose copy the receiver's cap and the zones allow (or {@code copyFound} if one was already found elsewhere).
   */
  private int shardOf(int g, int giver, int receiver, int copyFound) {
    int firstCopy = copyFound;
    int end = layout.base[g] + layout.group[g].shards();
    for (int s = layout.base[g]; s < end; s++) {
      if (layout.leader[s] != giver || layout.inFlight[s]) {
        continue;
      }
      if (layout.holds(s, receiver)) {
        return s;
      }
      if (firstCopy == Layout.NONE && copyAllowed(s, giver, receiver)) {
        firstCopy = s;
      }
    }
    return firstCopy;
  }

  private boolean copyAllowed(int s, int giver, int receiver) {
    int[] set = layout.replicas[s];
    return layout.hasRoom(receiver)
        && layout.zonesOf(set, giver, receiver) >= layout.zonesOf(set, Layout.NONE, Layout.NONE);
  }

  private Outcome tryMove(int s, int from, int to, Reason reason) {
    switch (layout.limitFor(from, to)) {
      case CLUSTER:
        return Outcome.CLUSTER_LIMIT;
      case BROKER:
        return Outcome.WAITING;
      default:
        layout.move(s, from, to);
        steps.add(layout.moveStep(s, reason, from, to));
        return Outcome.MOVED;
    }
  }

  /** Live brokers sorted by the comparator, then by id (index order). */
  private Integer[] sortedLive(Comparator<Integer> order) {
    Integer[] brokers = new Integer[layout.live.length];
    for (int i = 0; i < brokers.length; i++) {
      brokers[i] = layout.live[i];
    }
    Arrays.sort(brokers, order.thenComparingInt(b -> b));
    return brokers;
  }
}
