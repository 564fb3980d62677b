package io.felix.bench.placement;

import io.felix.placement.Assignment;
import io.felix.placement.Broker;
import io.felix.placement.BrokerState;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.PlacementSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The big lopsided layouts the placement benchmarks plan on: streams of {@code shardsPerStream} shards whose
 * leaders each go to a band of a tenth of the brokers at a random (seeded) offset, followers on random other
 * brokers. Cluster totals come out roughly even while every stream is lopsided: the case the stream tally fixes.
 */
final class SkewedLayout {

  private SkewedLayout() {}

  static ClusterSnapshot of(int brokerCount, int streams, int shardsPerStream, int rf, long seed) {
    Random random = new Random(seed);
    List<Broker> brokers = new ArrayList<>();
    for (int b = 0; b < brokerCount; b++) {
      brokers.add(Broker.live(b));
    }
    int band = Math.max(1, brokerCount / 10);
    List<Group> groups = new ArrayList<>();
    List<Assignment> assignments = new ArrayList<>();
    for (int g = 0; g < streams; g++) {
      String name = String.format("stream-%05d", g);
      groups.add(Group.stream(name, shardsPerStream, rf));
      int offset = random.nextInt(brokerCount);
      for (int s = 0; s < shardsPerStream; s++) {
        int leader = (offset + random.nextInt(band)) % brokerCount;
        List<Integer> replicas = new ArrayList<>(List.of(leader));
        while (replicas.size() < rf) {
          int b = random.nextInt(brokerCount);
          if (!replicas.contains(b)) {
            replicas.add(b);
          }
        }
        assignments.add(new Assignment(name, s, leader, replicas));
      }
    }
    return new ClusterSnapshot(brokers, groups, assignments, List.of(), PlacementSettings.DEFAULT);
  }

  /** The same layout with its brokers in three zones (id mod 3): moves may then not lower a shard's zone count. */
  static ClusterSnapshot inThreeZones(ClusterSnapshot snapshot) {
    List<Broker> zoned = new ArrayList<>();
    for (Broker b : snapshot.brokers()) {
      zoned.add(new Broker(b.id(), "zone-" + b.id() % 3, null, BrokerState.LIVE));
    }
    return snapshot.withBrokers(zoned);
  }
}
