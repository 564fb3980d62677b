package io.felix.placement;

/**
 * Chooses brokers for follower replicas: distinct live brokers, with room before without, a zone the set lacks
 * before one it has, then the fewest replicas of the group, the fewest replicas overall, the higher rendezvous
 * score, the lower id. New shards take their followers in the same order from {@link NewShardChoice}, which is
 * arranged for placing many shards in one pass; this class serves drains.
 */
final class FollowerChoice {

  private final Layout layout;

  FollowerChoice(Layout layout) {
    this.layout = layout;
  }

  /**
   * Where a follower leaving {@code from} should go: the same order, and keeping the set's zone count first of
   * all. {@link Layout#NONE} when every live broker already holds the shard.
   */
  int forDrain(int s, int from) {
    int[] set = layout.replicas[s];
    return best(s, set, set.length, from);
  }

  /**
   * The best live broker not among the first {@code used} entries of {@code set}, treating {@code out} as gone.
   * Runs for every live broker per follower, so the order is packed into one key (rank bits, then the group's
   * replicas, then all replicas) and the rendezvous score is computed only for ties on it.
   */
  private int best(int s, int[] set, int used, int out) {
    int row = layout.shardGroup[s] * layout.brokerCount;
    int[] groupHosted = layout.hostedByGroup;
    int[] hosted = layout.hostedTotal;
    int[] cap = layout.cap;
    boolean zoned = layout.zoneCount > 0;
    int zonesBefore = out == Layout.NONE ? 0 : layout.zonesOf(set, Layout.NONE, Layout.NONE);
    int best = Layout.NONE;
    long bestKey = Long.MAX_VALUE;
    long bestScore = 0;
    boolean bestScored = false;
    long seed = layout.seed(s);
    for (int b : layout.live) {
      if (contains(set, used, b)) {
        continue;
      }
      long rank = 0;
      if (out != Layout.NONE) {
        rank |= zoned && layout.zonesOf(set, out, b) < zonesBefore ? 4 : 0;
      } else {
        rank |= zoned && newZone(set, used, b) ? 0 : 1;
      }
      rank |= cap[b] != Layout.NONE && hosted[b] >= cap[b] ? 2 : 0;
      long key = (rank << 56) | ((long) groupHosted[row + b] << 28) | hosted[b];
      if (key < bestKey) {
        best = b;
        bestKey = key;
        bestScored = false;
      } else if (key == bestKey) {
        if (!bestScored) {
          bestScore = layout.score(seed, best);
          bestScored = true;
        }
        long score = layout.score(seed, b);
        if (score > bestScore) {
          best = b;
          bestScore = score;
        }
      }
    }
    return best;
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
