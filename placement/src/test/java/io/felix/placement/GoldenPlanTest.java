package io.felix.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Pins the planner's decisions: each test digests (SHA-256) every step of a plan or simulation of a seeded layout
 * and compares it with the digest the planner produced when the test was written (commit c96f83f, "placement:
 * golden plan digests ...", before the placement pass was made faster). A speed-up that changes any choice of
 * leader, follower, move or their order fails here; a deliberate change of the rules must update the digests and
 * say why.
 *
 * <p>The layouts cover what the fast paths touch: empty clusters (every shard placed in one pass, the benchmark's
 * shape scaled down), zones (some brokers without one), caps that fill up (placements falling to the "any with room"
 * and "least loaded" tiers), broker ids that are not 0..n-1, promotions interleaved with placements, draining and
 * down brokers, both strategies, and the random clusters of the property tests.
 */
class GoldenPlanTest {

  @Test
  void emptyClusterOf20000ShardsOn200BrokersIsPlacedAsBefore() {
    ClusterSnapshot empty = ClusterSnapshot.of(brokers(200, 0, 0, false, new Random(1)), streams(200, 100, 3));
    assertPlan(empty, 20_000, "ad1d1f061b8439716905d1b463afca34f69ce172164096199ff30469debc3bf8");
  }

  @Test
  void emptyZonedClusterWithSomeBrokersOutsideZonesIsPlacedAsBefore() {
    ClusterSnapshot empty =
        ClusterSnapshot.of(brokers(60, 3, 0, false, new Random(2)), mixedGroups(new Random(3), 40, 5));
    assertPlan(empty, 0, "0bcf7fd2dc32db1666c9c65b5466a741146fc6387a6dd28ad5829c4469b3a9fe");
  }

  @Test
  void emptyClusterWhoseCapsAllFillUpIsPlacedAsBefore() {
    ClusterSnapshot empty =
        ClusterSnapshot.of(brokers(30, 2, 1, false, new Random(4)), mixedGroups(new Random(5), 30, 3));
    assertPlan(empty, 0, "e532123e448588de7bd5d3d7280e69644f6af0ac3c378e71a12ae3d3326243a5");
  }

  @Test
  void emptyClusterUnderClusterShareIsPlacedAsBefore() {
    ClusterSnapshot empty = ClusterSnapshot
        .of(brokers(40, 3, 4, false, new Random(6)), mixedGroups(new Random(7), 30, 3))
        .withSettings(PlacementSettings.DEFAULT.withStrategy(Strategy.CLUSTER_SHARE));
    assertPlan(empty, 0, "deb353ee2d203ca43a1aabcca1da7310b42ef9397baff288c3b33eef85dd8af8");
  }

  @Test
  void partlyPlacedClusterWithFailedLeadersAndADrainingBrokerPlansAsBefore() {
    Random random = new Random(8);
    List<Broker> brokers = brokers(50, 3, 4, true, random);
    List<Group> groups = mixedGroups(random, 40, 3);
    ClusterSnapshot snapshot = ClusterSnapshot.of(brokers, groups)
        .withAssignments(partlyPlaced(brokers, groups, random))
        .withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(Integer.MAX_VALUE));
    assertPlan(snapshot, 0, "0ded56650638a4367c9f990ac5984e5dd6b35143faf343eea275dd9804fab276");
    assertSimulation(snapshot, "4ea58a9338a450127ef16d26060f39fc9e6365788c938123cf90e22efd14f1ce");
  }

  @Test
  void skewedUnzonedClusterWithNewShardsSimulatesAsBefore() {
    Random random = new Random(9);
    List<Broker> brokers = brokers(20, 0, 0, false, random);
    List<Group> groups = streams(30, 24, 3);
    ClusterSnapshot snapshot = ClusterSnapshot.of(brokers, groups)
        .withAssignments(partlyPlaced(brokers, groups, random))
        .withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(3));
    assertPlan(snapshot, 0, "ed5864701dffc092a209d72a6f1606f7957286db93ffa75dc058da43193a7d15");
    assertSimulation(snapshot, "390b5c341ecde3bec118704ceae860c523b687820c2d558eb9be1c9b4f073b26");
  }

  @Test
  void randomPropertyClustersPlanAndSimulateAsBefore() {
    Digest plans = new Digest();
    Digest simulations = new Digest();
    for (long seed = 0; seed < 1_000; seed++) {
      for (boolean constrained : new boolean[] {false, true}) {
        ClusterSnapshot snapshot = RandomClusters.generate(seed, constrained);
        plans.add(Planner.plan(snapshot));
        if (seed % 8 == 0) {
          simulations.add(Simulator.run(snapshot, 10_000));
        }
      }
    }
    assertEquals("4121930e0dfaa9c69e27bb640b529f3725e8a578ee1b79bdd7f1492d6108a890", plans.hex(),
        "plans of the random clusters");
    assertEquals("7f99fb1cfee55b057d3d3cfd8ce667582695660d9c53272d7f1bfe326dc3a568", simulations.hex(),
        "simulations of the random clusters");
  }

  // --- layouts ---

  /**
   * Brokers with ids 3b + 1 (so ids are not positions), in {@code zones} zones with about one in eight outside any
   * zone; one in {@code capOneIn} (none if 0) capped at 20 to 59 replicas, below an even share in the layouts
   * below, so capped brokers fill up; with {@code unwell}, one draining and one down broker.
   */
  private static List<Broker> brokers(int count, int zones, int capOneIn, boolean unwell, Random random) {
    List<Broker> brokers = new ArrayList<>();
    for (int b = 0; b < count; b++) {
      String zone = zones == 0 || random.nextInt(8) == 0 ? null : "zone-" + random.nextInt(zones);
      Integer cap = capOneIn > 0 && random.nextInt(capOneIn) == 0 ? 20 + random.nextInt(40) : null;
      BrokerState state = !unwell ? BrokerState.LIVE
          : b == count / 3 ? BrokerState.DRAINING : b == count / 2 ? BrokerState.DOWN : BrokerState.LIVE;
      brokers.add(new Broker(3 * b + 1, zone, cap, state));
    }
    return brokers;
  }

  private static List<Group> streams(int count, int shards, int rf) {
    List<Group> groups = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      groups.add(Group.stream(String.format("stream-%04d", g), shards, rf));
    }
    return groups;
  }

  /** Streams and caches of 0 to 60 shards, replication factor 1 to {@code maxRf}, named out of sorted order. */
  private static List<Group> mixedGroups(Random random, int count, int maxRf) {
    List<Group> groups = new ArrayList<>();
    for (int g = 0; g < count; g++) {
      GroupKind kind = random.nextInt(4) == 0 ? GroupKind.CACHE : GroupKind.STREAM;
      groups.add(new Group("g" + random.nextInt(1_000_000) + "-" + g, kind, random.nextInt(61),
          1 + random.nextInt(maxRf)));
    }
    return groups;
  }

  /**
   * About two thirds of the shards placed, leaders skewed to a band of brokers per group, some replicas lagging,
   * some shards without a leader; the rest are new.
   */
  private static List<Assignment> partlyPlaced(List<Broker> brokers, List<Group> groups, Random random) {
    List<Assignment> assignments = new ArrayList<>();
    for (Group group : groups) {
      int band = random.nextInt(brokers.size());
      for (int s = 0; s < group.shards(); s++) {
        if (random.nextInt(3) == 0) {
          continue;
        }
        List<Integer> replicas = new ArrayList<>();
        replicas.add(brokers.get((band + random.nextInt(4)) % brokers.size()).id());
        while (replicas.size() < group.replicationFactor()) {
          int id = brokers.get(random.nextInt(brokers.size())).id();
          if (!replicas.contains(id)) {
            replicas.add(id);
          }
        }
        List<Integer> inSync = new ArrayList<>(replicas);
        if (replicas.size() > 1 && random.nextInt(10) == 0) {
          inSync.remove(1 + random.nextInt(replicas.size() - 1));
        }
        int leader = random.nextInt(20) == 0 ? Assignment.NO_LEADER : replicas.get(0);
        assignments.add(new Assignment(group.name(), s, leader, replicas, inSync));
      }
    }
    return assignments;
  }

  // --- digests ---

  private static void assertPlan(ClusterSnapshot snapshot, int placements, String digest) {
    Plan plan = Planner.plan(snapshot);
    if (placements > 0) {
      assertEquals(placements, plan.steps().stream().filter(s -> s.action() == Action.PLACE).count());
    }
    Digest d = new Digest();
    d.add(plan);
    assertEquals(digest, d.hex(), "plan of " + plan.steps().size() + " steps");
  }

  private static void assertSimulation(ClusterSnapshot snapshot, String digest) {
    SimulationResult result = Simulator.run(snapshot, 100_000);
    Digest d = new Digest();
    d.add(result);
    assertEquals(digest, d.hex(), "simulation of " + result.steps().size() + " steps, " + result.passes()
        + " passes");
  }

  /** SHA-256 over one line per step (its toString carries every field) and the leaderless shards. */
  private static final class Digest {
    private final MessageDigest sha;

    Digest() {
      try {
        sha = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    void add(Plan plan) {
      for (Step step : plan.steps()) {
        line(step.toString());
      }
      line("leaderless " + plan.leaderless());
    }

    void add(SimulationResult result) {
      for (SimulatedStep step : result.steps()) {
        line(step.pass() + " " + step.step());
      }
      line("passes " + result.passes() + " converged " + result.converged());
    }

    private void line(String text) {
      sha.update((text + "\n").getBytes(StandardCharsets.UTF_8));
    }

    String hex() {
      return HexFormat.of().formatHex(sha.digest());
    }
  }
}
