package io.felix.placement;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random clusters for the property tests: 2 to 8 brokers, 1 to 5 groups of 0 to 24 shards, replication
 * factor 1 to 3, most shards already placed with leaders skewed towards a "hot" broker, some new. With
 * {@code constrained}, brokers get zones, some get caps (at least what they host), one may be draining or down,
 * a few shards have a lagging (not in-sync) replica and a few have no leader.
 */
final class RandomClusters {

  private RandomClusters() {}

  static ClusterSnapshot generate(long seed, boolean constrained) {
    Random random = new Random(seed);
    int brokerCount = 2 + random.nextInt(7);
    List<BrokerState> states = new ArrayList<>(Collections.nCopies(brokerCount, BrokerState.LIVE));
    if (constrained && brokerCount >= 3 && random.nextInt(3) == 0) {
      states.set(random.nextInt(brokerCount), random.nextInt(4) == 0 ? BrokerState.DOWN : BrokerState.DRAINING);
    }
    int live = (int) states.stream().filter(s -> s == BrokerState.LIVE).count();
    int zones = constrained ? 2 + random.nextInt(2) : 0;

    List<Group> groups = new ArrayList<>();
    List<Assignment> assignments = new ArrayList<>();
    int hot = random.nextInt(brokerCount);
    int groupCount = 1 + random.nextInt(5);
    for (int g = 0; g < groupCount; g++) {
      String name = "g" + g;
      int shards = random.nextInt(25);
      int rf = 1 + random.nextInt(Math.min(3, live));
      groups.add(new Group(name, random.nextInt(4) == 0 ? GroupKind.CACHE : GroupKind.STREAM, shards, rf));
      int groupHot = random.nextBoolean() ? hot : random.nextInt(brokerCount);
      for (int s = 0; s < shards; s++) {
        if (random.nextInt(8) == 0) {
          continue; // a new shard
        }
        int leader = random.nextInt(3) > 0 ? groupHot : random.nextInt(brokerCount);
        List<Integer> replicas = new ArrayList<>(List.of(leader));
        while (replicas.size() < rf) {
          int b = random.nextInt(brokerCount);
          if (!replicas.contains(b)) {
            replicas.add(b);
          }
        }
        Collections.shuffle(replicas, random);
        List<Integer> inSync = new ArrayList<>(replicas);
        if (constrained && replicas.size() > 1 && random.nextInt(12) == 0) {
          inSync.remove(random.nextInt(inSync.size())); // a lagging replica that may not be promoted
        }
        if (constrained && random.nextInt(15) == 0) {
          leader = Assignment.NO_LEADER; // a shard whose leader is already gone
        }
        assignments.add(new Assignment(name, s, leader, replicas, inSync));
      }
    }
    Map<Integer, Integer> hosted = new HashMap<>();
    assignments.forEach(a -> a.replicas().forEach(b -> hosted.merge(b, 1, Integer::sum)));
    List<Broker> brokers = new ArrayList<>();
    for (int b = 0; b < brokerCount; b++) {
      String zone = zones == 0 ? null : "z" + random.nextInt(zones);
      Integer cap = constrained && random.nextInt(4) == 0 ? hosted.getOrDefault(b, 0) + random.nextInt(9) : null;
      brokers.add(new Broker(b, zone, cap, states.get(b)));
    }
    PlacementSettings settings = new PlacementSettings(Strategy.STREAM_AWARE, 1 + random.nextInt(4),
        random.nextInt(5) == 0 ? 1 + random.nextInt(2) : null, false);
    return new ClusterSnapshot(brokers, groups, assignments, List.of(), settings);
  }
}
