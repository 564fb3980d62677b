package io.felix.placement;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/** Builds test layouts: brokers, and groups whose shards are led a given number of times by each broker. */
final class Layouts {

  private final List<Broker> brokers = new ArrayList<>();
  private final List<Group> groups = new ArrayList<>();
  private final List<Assignment> assignments = new ArrayList<>();
  private PlacementSettings settings = PlacementSettings.DEFAULT;

  static Layouts liveBrokers(int count) {
    Layouts layouts = new Layouts();
    for (int id = 0; id < count; id++) {
      layouts.brokers.add(Broker.live(id));
    }
    return layouts;
  }

  Layouts broker(Broker broker) {
    brokers.removeIf(b -> b.id() == broker.id());
    brokers.add(broker);
    return this;
  }

  /**
   * A stream whose shards are led {@code leaders[i]} times by broker {@code i}, shards numbered in that order; each
   * replica set is the leader then the next {@code rf - 1} brokers by id (wrapping around).
   */
  Layouts stream(String name, int rf, int... leaders) {
    return group(GroupKind.STREAM, name, rf, leaders);
  }

  Layouts cache(String name, int rf, int... leaders) {
    return group(GroupKind.CACHE, name, rf, leaders);
  }

  private Layouts group(GroupKind kind, String name, int rf, int... leaders) {
    int shard = 0;
    List<Integer> ids = brokers.stream().map(Broker::id).sorted().toList();
    for (int i = 0; i < leaders.length; i++) {
      for (int n = 0; n < leaders[i]; n++) {
        List<Integer> replicas = new ArrayList<>();
        for (int r = 0; r < rf; r++) {
          replicas.add(ids.get((i + r) % ids.size()));
        }
        assignments.add(new Assignment(name, shard++, ids.get(i), replicas));
      }
    }
    groups.add(new Group(name, kind, shard, rf));
    return this;
  }

  /** A group none of whose shards is placed yet. */
  Layouts newStream(String name, int shards, int rf) {
    groups.add(Group.stream(name, shards, rf));
    return this;
  }

  Layouts group(Group group) {
    groups.add(group);
    return this;
  }

  Layouts assignment(Assignment assignment) {
    assignments.add(assignment);
    return this;
  }

  Layouts settings(PlacementSettings newSettings) {
    settings = newSettings;
    return this;
  }

  ClusterSnapshot snapshot() {
    return new ClusterSnapshot(brokers, groups, assignments, List.of(), settings);
  }

  /** The group's leader counts per live broker, in broker id order. */
  static List<Integer> counts(SimulationResult result, String group) {
    return List.copyOf(result.leaders().groups().get(group).values());
  }

  static List<Integer> totals(SimulationResult result) {
    return List.copyOf(result.leaders().total().values());
  }

  static List<Integer> counts(LeaderCounts leaders, String group) {
    return List.copyOf(leaders.groups().get(group).values());
  }

  /** Replicas hosted per broker id in the snapshot. */
  static Map<Integer, Integer> hosted(ClusterSnapshot snapshot) {
    Map<Integer, Integer> hosted = new HashMap<>();
    for (Assignment a : snapshot.assignments()) {
      a.replicas().forEach(b -> hosted.merge(b, 1, Integer::sum));
    }
    return hosted;
  }

  static boolean withinOne(SortedMap<Integer, Integer> counts) {
    return counts.isEmpty()
        || counts.values().stream().mapToInt(i -> i).max().getAsInt()
            - counts.values().stream().mapToInt(i -> i).min().getAsInt() <= 1;
  }

  static long movesOf(SimulationResult result, String group) {
    return result.steps().stream()
        .filter(s -> s.step().action() == Action.MOVE && s.step().group().equals(group)).count();
  }
}
