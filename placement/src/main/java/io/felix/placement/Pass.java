package io.felix.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * One planning pass over a {@link Layout}: promotions, placements, then drain, stream and cluster moves. Each
 * step is applied to the layout as it is planned. The algorithm and its guarantees are described on
 * {@link Planner}.
 */
final class Pass {

  private final Layout layout;
  private final LeaderTiers tiers;
  private final List<Step> steps = new ArrayList<>();
  private final List<ShardRef> leaderless = new ArrayList<>();
  /** Made at the first new shard: most passes place none. */
  private NewShardChoice newShards;

  Pass(Layout layout) {
    this.layout = layout;
    this.tiers = new LeaderTiers(layout);
  }

  Plan run() {
    List<Integer> stillLeaderless = new ArrayList<>();
    for (int s : layout.pendingLeaders()) {
      if (layout.replicas[s] == null) {
        place(s);
      } else if (!promote(s, layout.inSync[s] == null ? layout.replicas[s] : layout.inSync[s])) {
        stillLeaderless.add(s);
        leaderless.add(new ShardRef(layout.group[layout.shardGroup[s]].name(), layout.shardNumber(s)));
      }
    }
    layout.setPendingLeaders(stillLeaderless);
    if (!layout.settings.paused()) {
      boolean draining = new DrainMoves(layout, tiers, steps).plan();
      if (!draining) {
        new RebalanceMoves(layout, steps).plan();
      }
    }
    return new Plan(steps, leaderless);
  }

  Optional<Step> promoteOne(String groupName, int shard, Set<Integer> inSyncIds) {
    if (!layout.hasShard(groupName, shard)) {
      throw new InvalidLayoutException("promote " + groupName + "/" + shard + ": no such shard");
    }
    int s = layout.slot(groupName, shard);
    if (layout.replicas[s] == null) {
      throw new InvalidLayoutException("promote " + groupName + "/" + shard + ": shard has no assignment");
    }
    int[] candidates = new int[inSyncIds.size()];
    int i = 0;
    for (int id : new TreeSet<>(inSyncIds)) {
      Integer b = layout.brokerOrNull(id);
      if (b == null || !layout.holds(s, b)) {
        throw new InvalidLayoutException("promote " + groupName + "/" + shard + ": broker " + id
            + " holds no replica of it (replicas " + layout.ids(layout.replicas[s]) + ")");
      }
      candidates[i++] = b;
    }
    int failed = layout.leader[s];
    layout.setLeader(s, Layout.NONE);
    return promote(s, candidates, failed) ? Optional.of(steps.get(steps.size() - 1)) : Optional.empty();
  }

  private boolean promote(int s, int[] candidates) {
    return promote(s, candidates, layout.leader[s]);
  }

  /** Promotes the best live in-sync replica; a draining one only if no live one is in sync. */
  private boolean promote(int s, int[] candidates, int failed) {
    int g = layout.shardGroup[s];
    int best = Layout.NONE;
    int bestTier = 0;
    boolean bestLive = false;
    for (int b : candidates) {
      if (b == failed || layout.state[b] == BrokerState.DOWN) {
        continue;
      }
      boolean live = layout.isLive(b);
      int tier = tiers.tier(g, b, false);
      boolean better = best == Layout.NONE || (live && !bestLive)
          || (live == bestLive && tiers.beats(s, b, tier, best, bestTier));
      if (better) {
        best = b;
        bestTier = tier;
        bestLive = live;
      }
    }
    if (best == Layout.NONE) {
      return false;
    }
    layout.setLeader(s, best);
    if (newShards != null) {
      newShards.changed(best);
      newShards.changed(failed);
    }
    steps.add(new Step(Action.PROMOTE, Reason.FAILOVER, layout.group[g].name(), layout.shardNumber(s),
        failed == Layout.NONE ? null : layout.brokerId[failed], layout.brokerId[best], layout.brokerId[best],
        layout.ids(layout.replicas[s])));
    return true;
  }

  private void place(int s) {
    if (newShards == null) {
      newShards = new NewShardChoice(layout, tiers);
    }
    int g = layout.shardGroup[s];
    int[] set = newShards.choose(s);
    int lead = set[0];
    layout.place(s, lead, set);
    for (int b : set) {
      newShards.changed(b);
    }
    steps.add(new Step(Action.PLACE, Reason.NEW_SHARD, layout.group[g].name(), layout.shardNumber(s), null,
        layout.brokerId[lead], layout.brokerId[lead], layout.ids(set)));
  }
}
