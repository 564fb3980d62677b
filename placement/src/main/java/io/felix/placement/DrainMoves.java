package io.felix.placement;

import java.util.List;

/**
 * Moves everything off draining brokers, shard by shard in order. A draining leader goes, preferably, as a staged
 * copy to a live broker with room that keeps the replica set's zone count (one move empties the draining broker of
 * the shard), else as a transfer to a follower, ranked by {@link LeaderTiers} within each; a draining follower goes
 * where {@link FollowerChoice} says. A shard whose destination is held back by a move limit waits for the next pass
 * rather than taking a worse destination. While drain work is planned or waiting, rebalance moves wait too: moving
 * leaders around a layout that is still being emptied only makes shards move twice.
 */
final class DrainMoves {

  private final Layout layout;
  private final LeaderTiers tiers;
  private final List<Step> steps;

  DrainMoves(Layout layout, LeaderTiers tiers, List<Step> steps) {
    this.layout = layout;
    this.tiers = tiers;
    this.steps = steps;
  }

  /** Plans drain moves; true if any was planned or one is held back by a move limit. */
  boolean plan() {
    boolean wanted = false;
    if (!layout.anyDrainingHostsShards()) {
      return false;
    }
    for (int s = 0; s < layout.shardCount && !layout.clusterLimitReached(); s++) {
      if (layout.replicas[s] == null || layout.inFlight[s]) {
        continue;
      }
      int lead = layout.leader[s];
      if (lead != Layout.NONE && layout.state[lead] == BrokerState.DRAINING) {
        wanted |= tryMove(s, lead, leaderDestination(s, lead));
        continue;
      }
      int from = drainingFollower(s);
      if (from != Layout.NONE) {
        wanted |= tryMove(s, from, new FollowerChoice(layout).forDrain(s, from));
      }
    }
    return wanted || (layout.clusterLimitReached() && layout.anyDrainingHostsShards());
  }

  private boolean tryMove(int s, int from, int to) {
    if (to == Layout.NONE) {
      return false;
    }
    if (layout.limitFor(from, to) == MoveBudget.Limit.NONE) {
      layout.move(s, from, to);
      steps.add(layout.moveStep(s, Reason.DRAIN, from, to));
    }
    return true;
  }

  private int leaderDestination(int s, int from) {
    int g = layout.shardGroup[s];
    int[] set = layout.replicas[s];
    int zonesBefore = layout.zonesOf(set, Layout.NONE, Layout.NONE);
    int best = Layout.NONE;
    int bestTier = 0;
    int bestRank = 0;
    for (int b : layout.live) {
      boolean holder = layout.holds(s, b);
      // Rank 0: a copy that keeps the zones and fits the cap, which empties the draining broker of this shard in
      // one move; 1: a transfer to a follower, after which the draining follower still has to move; 2: the rest.
      int rank = holder ? 1 : layout.hasRoom(b) && layout.zonesOf(set, from, b) >= zonesBefore ? 0 : 2;
      int tier = tiers.tier(g, b, !holder);
      if (best == Layout.NONE || rank < bestRank
          || (rank == bestRank && tiers.beats(s, b, tier, best, bestTier))) {
        best = b;
        bestTier = tier;
        bestRank = rank;
      }
    }
    return best;
  }

  private int drainingFollower(int s) {
    int found = Layout.NONE;
    for (int b : layout.replicas[s]) {
      if (layout.state[b] == BrokerState.DRAINING && (found == Layout.NONE || b < found)) {
        found = b;
      }
    }
    return found;
  }
}
