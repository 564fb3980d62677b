package io.felix.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

/**
 * Properties over thousands of seeded random clusters (see {@link RandomClusters}); a failure names its seed, and
 * {@code RandomClusters.generate(seed, constrained)} rebuilds the cluster. The rates of shards moving twice and of
 * groups ending two apart are printed (in target/surefire-reports/*-output.txt), not asserted, where zones, caps
 * and drains can make them unavoidable.
 */
class RandomClusterPropertyTest {

  private static final int CLUSTERS = 2_000;

  @Test
  void plainClustersConvergeLevelWithEveryMoveLoweringTheSpread() {
    Tally tally = new Tally();
    for (long seed = 0; seed < CLUSTERS; seed++) {
      ClusterSnapshot snapshot = RandomClusters.generate(seed, false);
      SimulationResult result = Simulator.run(snapshot, 10_000);
      String where = "seed " + seed;
      assertTrue(result.converged(), where);
      MoveReplay.check(snapshot, result, where);
      for (Group group : snapshot.groups()) {
        int floor = group.shards() / snapshot.brokers().size();
        int ceiling = Layout.ceilDiv(group.shards(), snapshot.brokers().size());
        for (int count : result.leaders().groups().get(group.name()).values()) {
          if (count < floor || count > ceiling) {
            fail(where + ": group " + group.name() + " ends " + result.leaders().groups().get(group.name())
                + ", outside [" + floor + ", " + ceiling + "]");
          }
        }
      }
      assertTrue(Layouts.withinOne(result.leaders().total()), where + ": totals " + result.leaders().total());
      tally.add(snapshot, result);
    }
    tally.print("plain (no zones, caps or draining)");
  }

  @Test
  void clusterShareLevelsOnlyTheTotalsOfTheSameClusters() {
    Tally tally = new Tally();
    long groupsTwoApart = 0;
    for (long seed = 0; seed < CLUSTERS; seed++) {
      ClusterSnapshot snapshot = RandomClusters.generate(seed, false);
      snapshot = snapshot.withSettings(snapshot.settings().withStrategy(Strategy.CLUSTER_SHARE));
      SimulationResult result = Simulator.run(snapshot, 10_000);
      String where = "seed " + seed;
      assertTrue(result.converged(), where);
      assertTrue(Layouts.withinOne(result.leaders().total()), where + ": totals " + result.leaders().total());
      groupsTwoApart += result.leaders().groups().values().stream().filter(c -> !Layouts.withinOne(c)).count();
      tally.add(snapshot, result);
    }
    tally.print("plain clusters under cluster-share (the old rule, for comparison)");
    // The same clusters end with every group level under stream-aware (the test above); the old rule leaves many
    // two or more apart, which is the skew the stream tally removes.
    assertTrue(groupsTwoApart > CLUSTERS / 4, "cluster-share left only " + groupsTwoApart + " groups skewed");
  }

  @Test
  void zonedCappedAndDrainingClustersConvergeWithoutLosingZonesOrPassingCaps() {
    Tally tally = new Tally();
    for (long seed = 0; seed < CLUSTERS; seed++) {
      ClusterSnapshot snapshot = RandomClusters.generate(1_000_000 + seed, true);
      SimulationResult result = Simulator.run(snapshot, 10_000);
      String where = "seed " + (1_000_000 + seed);
      assertTrue(result.converged(), where);
      MoveReplay.check(snapshot, result, where);
      for (Broker broker : snapshot.brokers()) {
        if (broker.state() == BrokerState.DRAINING) {
          assertEquals(0, Layouts.hosted(result.finalSnapshot()).getOrDefault(broker.id(), 0),
              where + ": draining broker " + broker.id() + " still hosts replicas");
        }
      }
      tally.add(snapshot, result);
    }
    tally.print("constrained (zones, caps, draining or down brokers)");
  }

  /**
   * Counts, per kind of cluster, shards moved more than once (any two moves; of those, how many had their leader
   * moved twice, and how many were copied twice) and groups whose live brokers end two or more apart.
   */
  private static final class Tally {
    private final Map<String, long[]> byKind = new java.util.TreeMap<>();

    void add(ClusterSnapshot snapshot, SimulationResult result) {
      long[] t = byKind.computeIfAbsent(kind(snapshot), k -> new long[8]);
      t[0]++;
      t[1] += result.moveCount();
      Map<ShardRef, int[]> perShard = new HashMap<>();
      for (SimulatedStep s : result.steps()) {
        Step step = s.step();
        if (step.action() == Action.MOVE) {
          int[] n = perShard.computeIfAbsent(new ShardRef(step.group(), step.shard()), r -> new int[3]);
          n[0]++;
          n[1] += step.leader() == step.to() ? 1 : 0; // the leader changed
          n[2] += step.isLeadershipTransfer() ? 0 : 1; // data was copied
        }
      }
      t[2] += perShard.size();
      t[3] += perShard.values().stream().filter(n -> n[0] > 1).count();
      t[4] += perShard.values().stream().filter(n -> n[1] > 1).count();
      t[5] += perShard.values().stream().filter(n -> n[2] > 1).count();
      Set<Integer> live = new HashSet<>();
      snapshot.brokers().stream().filter(b -> b.state() == BrokerState.LIVE).forEach(b -> live.add(b.id()));
      for (SortedMap<Integer, Integer> counts : result.leaders().groups().values()) {
        t[6]++;
        SortedMap<Integer, Integer> onLive = new java.util.TreeMap<>(counts);
        onLive.keySet().retainAll(live);
        t[7] += Layouts.withinOne(onLive) ? 0 : 1;
      }
    }

    private static String kind(ClusterSnapshot snapshot) {
      List<String> parts = new java.util.ArrayList<>();
      if (snapshot.brokers().stream().anyMatch(b -> b.zone() != null)) {
        parts.add("zones");
      }
      if (snapshot.brokers().stream().anyMatch(b -> b.maxShards() != null)) {
        parts.add("caps");
      }
      if (snapshot.brokers().stream().anyMatch(b -> b.state() == BrokerState.DRAINING)) {
        parts.add("draining");
      }
      if (snapshot.brokers().stream().anyMatch(b -> b.state() == BrokerState.DOWN)) {
        parts.add("down");
      }
      return parts.isEmpty() ? "plain" : String.join("+", parts);
    }

    void print(String title) {
      System.out.println(title);
      byKind.forEach((kind, t) -> System.out.printf(
          "  %-24s %5d clusters %6d moves %6d shards moved: %4d moved twice or more (%.2f%%), leader moved twice"
              + " %d (%.2f%%), copied twice %d (%.2f%%); groups ending two or more apart: %d of %d (%.2f%%)%n",
          kind, t[0], t[1], t[2], t[3], pct(t[3], t[2]), t[4], pct(t[4], t[2]), t[5], pct(t[5], t[2]), t[7], t[6],
          pct(t[7], t[6])));
    }

    private static double pct(long part, long whole) {
      return 100.0 * part / Math.max(1, whole);
    }
  }

  /**
   * Replays a simulation's steps and checks every rebalance move: the (group, cluster) sums of squared leader
   * counts fall lexicographically, the shard keeps its zone count, and a copy never fills a broker past its cap.
   */
  static final class MoveReplay {

    static void check(ClusterSnapshot snapshot, SimulationResult result, String where) {
      Map<Integer, Broker> brokers = new HashMap<>();
      snapshot.brokers().forEach(b -> brokers.put(b.id(), b));
      Map<ShardRef, Assignment> layout = new HashMap<>();
      Map<String, Map<Integer, Integer>> groupLeaders = new HashMap<>();
      Map<Integer, Integer> totals = new HashMap<>();
      Map<Integer, Integer> hosted = new HashMap<>();
      snapshot.groups().forEach(g -> groupLeaders.put(g.name(), new HashMap<>()));
      for (Assignment a : snapshot.assignments()) {
        layout.put(new ShardRef(a.group(), a.shard()), a);
        count(groupLeaders.get(a.group()), totals, a.leader(), 1);
        a.replicas().forEach(b -> hosted.merge(b, 1, Integer::sum));
      }
      for (SimulatedStep simulated : result.steps()) {
        Step step = simulated.step();
        ShardRef ref = new ShardRef(step.group(), step.shard());
        Assignment before = layout.get(ref);
        Map<Integer, Integer> inGroup = groupLeaders.get(step.group());
        boolean rebalance = step.reason() == Reason.STREAM || step.reason() == Reason.CLUSTER;
        if (rebalance) {
          int giver = step.from();
          int receiver = step.to();
          long groupDelta = 2L * (inGroup.getOrDefault(receiver, 0) - inGroup.getOrDefault(giver, 0) + 1);
          long clusterDelta = 2L * (totals.getOrDefault(receiver, 0) - totals.getOrDefault(giver, 0) + 1);
          if (!(groupDelta < 0 || (groupDelta == 0 && clusterDelta < 0))) {
            fail(where + ": " + step + " does not lower (group, cluster) squares: deltas " + groupDelta + ", "
                + clusterDelta);
          }
          if (zones(before.replicas(), brokers) > zones(step.replicas(), brokers)) {
            fail(where + ": " + step + " lowers the zone count of " + before.replicas());
          }
          Integer cap = brokers.get(receiver).maxShards();
          if (!step.isLeadershipTransfer() && cap != null && hosted.getOrDefault(receiver, 0) + 1 > cap) {
            fail(where + ": " + step + " fills broker " + receiver + " past its cap " + cap);
          }
        }
        if (before != null) {
          count(inGroup, totals, before.leader(), -1);
          before.replicas().forEach(b -> hosted.merge(b, -1, Integer::sum));
        }
        count(inGroup, totals, step.leader(), 1);
        step.replicas().forEach(b -> hosted.merge(b, 1, Integer::sum));
        layout.put(ref, new Assignment(step.group(), step.shard(), step.leader(), step.replicas()));
      }
      Set<Assignment> replayed = new HashSet<>();
      layout.values().forEach(a -> replayed.add(new Assignment(a.group(), a.shard(), a.leader(), a.replicas())));
      Set<Assignment> simulated = new HashSet<>();
      result.finalSnapshot().assignments()
          .forEach(a -> simulated.add(new Assignment(a.group(), a.shard(), a.leader(), a.replicas())));
      assertEquals(replayed, simulated, where + ": replaying the steps does not give the final layout");
    }

    private static void count(Map<Integer, Integer> inGroup, Map<Integer, Integer> totals, int leader, int delta) {
      if (leader != Assignment.NO_LEADER) {
        inGroup.merge(leader, delta, Integer::sum);
        totals.merge(leader, delta, Integer::sum);
      }
    }

    private static int zones(List<Integer> replicas, Map<Integer, Broker> brokers) {
      Set<String> zones = new HashSet<>();
      replicas.forEach(b -> {
        if (brokers.get(b).zone() != null) {
          zones.add(brokers.get(b).zone());
        }
      });
      return zones.size();
    }
  }
}
