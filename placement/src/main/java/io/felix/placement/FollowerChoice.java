package io.felix.placement;

/**
 * Chooses brokers for follower replicas: distinct live brokers, with room before without, a zone the set lacks
 * before one it has, then the fewest replicas of the group, the fewest replicas overall, the higher rendezvous
 * score, the lower id.
 */
final class FollowerChoice {

  private final Layout layout;

  FollowerChoice(Layout layout) {
    this.layout = layout;
  }

  /** The replica set of a new shard: the leader first, then {@code rf - 1} followers. */
  int[] forNewShard(int s, int lead, int rf) {
    int[] set = new int[rf];
    set[0] = lead;
    for (int i = 1; i < rf; i++) {
      set[i] = best(s, set, i, Layout.NONE);
    }
    return set;
  }

  /**
   * Where a follower leaving {@code from} should go: the same order, and keeping the set's zone count first of
   * all. {@link Layout#NONE} when every live broker already holds the shard.
   */
  int forDrain(int s, int from) {
    int[] set = layout.replicas[s];
    return best(s, set, set.length, from);
  }

  /** The best live broker not among the first {@code used} entries of {@code set}, treating {@code out} as gone. */
  private int best(int s, int[] set, int used, int out) {
    int g = layout.shardGroup[s];
    int zonesBefore = out == Layout.NONE ? 0 : layout.zonesOf(set, Layout.NONE, Layout.NONE);
    int best = Layout.NONE;
    int bestRank = 0;
    for (int b : layout.live) {
      if (contains(set, used, b)) {
        continue;
      }
      int rank = 0;
      if (out != Layout.NONE && layout.zonesOf(set, out, b) < zonesBefore) {
        rank |= 4;
      }
      if (!layout.hasRoom(b)) {
        rank |= 2;
      }
      if (out == Layout.NONE && !newZone(set, used, b)) {
        rank |= 1;
      }
      if (best == Layout.NONE || rank < bestRank || (rank == bestRank && fewer(s, g, b, best))) {
        best = b;
        bestRank = rank;
      }
    }
    return best;
  }

  private boolean fewer(int s, int g, int b, int best) {
    if (layout.groupReplicas(g, b) != layout.groupReplicas(g, best)) {
      return layout.groupReplicas(g, b) < layout.groupReplicas(g, best);
    }
    if (layout.hostedTotal[b] != layout.hostedTotal[best]) {
      return layout.hostedTotal[b] < layout.hostedTotal[best];
    }
    return layout.score(s, b) > layout.score(s, best);
  }

  private boolean newZone(int[] set, int used, int b) {
    int z = layout.zone[b];
    if (z == Layout.NONE) {
      return false;
    }
    for (int i = 0; i < used; i++) {
      if (layout.zone[set[i]] == z) {
        return false;
      }
    }
    return true;
  }

  private static boolean contains(int[] set, int used, int b) {
    for (int i = 0; i < used; i++) {
      if (set[i] == b) {
        return true;
      }
    }
    return false;
  }
}
