package io.felix.placement;

/**
 * Ranks brokers as the leader of a shard. Tiers, first non-empty wins: 0 under the group floor and the cluster
 * share; 1 under the floor; 2 under the group ceiling and the share; 3 under the ceiling; 4 under the share; 5 any
 * broker with room; 6 any broker (least loaded first). Strategy {@code cluster-share} skips tiers 0 to 3. Within
 * tiers 0 to 5 the higher rendezvous score wins; in tier 6 the fewest leaders, then the score. Ties go to the
 * lower broker id, which the callers get by scanning brokers in id order and keeping the first best.
 */
final class LeaderTiers {

  static final int LAST = 6;

  private final Layout layout;
  private final boolean streamAware;

  LeaderTiers(Layout layout) {
    this.layout = layout;
    this.streamAware = layout.settings.strategy() == Strategy.STREAM_AWARE;
  }

  /**
   * @param needsRoom whether taking the lead adds a replica to the broker (it holds none of the shard yet)
   */
  int tier(int g, int b, boolean needsRoom) {
    if (needsRoom && !layout.hasRoom(b)) {
      return LAST;
    }
    int inGroup = layout.groupLeaders(g, b);
    boolean underShare = layout.leadersTotal[b] < layout.clusterShare;
    if (streamAware) {
      if (inGroup < layout.floor[g]) {
        return underShare ? 0 : 1;
      }
      if (inGroup < layout.ceiling[g]) {
        return underShare ? 2 : 3;
      }
    }
    return underShare ? 4 : 5;
  }

  /** Whether candidate {@code b} (tier {@code tb}) beats the current best {@code best} (tier {@code tBest}). */
  boolean beats(int s, int b, int tb, int best, int tBest) {
    if (best == Layout.NONE || tb != tBest) {
      return best == Layout.NONE || tb < tBest;
    }
    if (tb == LAST && layout.leadersTotal[b] != layout.leadersTotal[best]) {
      return layout.leadersTotal[b] < layout.leadersTotal[best];
    }
    return layout.score(s, b) > layout.score(s, best);
  }
}
