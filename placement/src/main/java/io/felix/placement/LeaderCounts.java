package io.felix.placement;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Leaders per broker, in total and per group, as the simulate output and the admin API report them. Every live
 * broker is present, at 0 if it leads nothing; other brokers appear only if they lead something.
 */
public record LeaderCounts(SortedMap<Integer, Integer> total, SortedMap<String, SortedMap<Integer, Integer>> groups) {

  public LeaderCounts {
    total = Collections.unmodifiableSortedMap(new TreeMap<>(total));
    SortedMap<String, SortedMap<Integer, Integer>> copy = new TreeMap<>();
    groups.forEach((name, counts) -> copy.put(name, Collections.unmodifiableSortedMap(new TreeMap<>(counts))));
    groups = Collections.unmodifiableSortedMap(copy);
  }

  /** Counts the leaders of the snapshot's assignments as they stand (moves in flight are not applied). */
  public static LeaderCounts of(ClusterSnapshot snapshot) {
    SortedMap<Integer, Integer> total = new TreeMap<>();
    SortedMap<String, SortedMap<Integer, Integer>> groups = new TreeMap<>();
    for (Group group : snapshot.groups()) {
      SortedMap<Integer, Integer> counts = new TreeMap<>();
      for (Broker broker : snapshot.brokers()) {
        if (broker.state() == BrokerState.LIVE) {
          counts.put(broker.id(), 0);
        }
      }
      groups.put(group.name(), counts);
    }
    for (Broker broker : snapshot.brokers()) {
      if (broker.state() == BrokerState.LIVE) {
        total.put(broker.id(), 0);
      }
    }
    for (Assignment assignment : snapshot.assignments()) {
      if (assignment.leader() != Assignment.NO_LEADER) {
        total.merge(assignment.leader(), 1, Integer::sum);
        groups.get(assignment.group()).merge(assignment.leader(), 1, Integer::sum);
      }
    }
    return new LeaderCounts(total, groups);
  }

  /** Most minus fewest leaders of a group over the given brokers' entries (0 for an empty group). */
  public int spread(String group) {
    SortedMap<Integer, Integer> counts = groups.get(group);
    if (counts == null || counts.isEmpty()) {
      return 0;
    }
    return Collections.max(counts.values()) - Collections.min(counts.values());
  }

  public int totalSpread() {
    return total.isEmpty() ? 0 : Collections.max(total.values()) - Collections.min(total.values());
  }
}
