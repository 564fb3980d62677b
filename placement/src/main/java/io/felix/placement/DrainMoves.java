package io.felix.placement;

import java.util.List;

/**
 * Moves everything off draining brokers, shard by shard in order. A draining leader goes to the live broker that
 * keeps the replica set's zone count and ranks best by {@link LeaderTiers} (a leadership transfer if it already
 * holds a replica); a draining follower goes where {@link FollowerChoice} says. A shard whose destination is held
 * back by a per-broker limit waits for the next pass rather than taking a worse destination.
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

  void plan() {
    if (!layout.anyDrainingHostsShards()) {
      return;
    }
    for (int s = 0; s < layout.shardCount && !layout.clusterLimitReached(); s++) {
      if (layout.replicas[s] == null || layout.inFlight[s]) {
        continue;
      }
      int lead = layout.leader[s];
      if (lead != Layout.NONE && layout.state[lead] == BrokerState.DRAINING) {
        moveLeader(s, lead);
        continue;
      }
      int from = drainingFollower(s);
      if (from != Layout.NONE) {
        int to = new FollowerChoice(layout).forDrain(s, from);
        if (to != Layout.NONE && layout.limitFor(from, to) == Layout.MoveLimit.NONE) {
          record(s, from, to);
        }
      }
    }
  }

  private void moveLeader(int s, int from) {
    int g = layout.shardGroup[s];
    int[] set = layout.replicas[s];
    int zonesBefore = layout.zonesOf(set, Layout.NONE, Layout.NONE);
    int best = Layout.NONE;
    int bestTier = 0;
    boolean bestKeepsZones = false;
    for (int b : layout.live) {
      boolean holder = layout.holds(s, b);
      boolean keepsZones = holder || layout.zonesOf(set, from, b) >= zonesBefore;
      int tier = tiers.tier(g, b, !holder);
      boolean better = best == Layout.NONE || (keepsZones && !bestKeepsZones)
          || (keepsZones == bestKeepsZones && tiers.beats(s, b, tier, best, bestTier));
      if (better) {
        best = b;
        bestTier = tier;
        bestKeepsZones = keepsZones;
      }
    }
    if (best != Layout.NONE && layout.limitFor(from, best) == Layout.MoveLimit.NONE) {
      record(s, from, best);
    }
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

  private void record(int s, int from, int to) {
    layout.move(s, from, to);
    steps.add(layout.moveStep(s, Reason.DRAIN, from, to));
  }
}
