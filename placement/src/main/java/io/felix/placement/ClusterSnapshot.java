package io.felix.placement;

import java.util.List;

/**
 * Everything placement looks at, read-only: the brokers, the groups, the current assignments, the moves already in
 * flight and the settings. Shards of a group without an assignment are new and get placed. The constructor checks
 * the snapshot whole (see {@link SnapshotRules}), so a planner never sees, and never half-applies, a bad one.
 *
 * <p>The order of every list is irrelevant to the plan: the planner sorts brokers by id and shards by (group,
 * shard).
 */
public record ClusterSnapshot(
    List<Broker> brokers,
    List<Group> groups,
    List<Assignment> assignments,
    List<MoveInFlight> movesInFlight,
    PlacementSettings settings) {

  public ClusterSnapshot {
    brokers = List.copyOf(requireList(brokers, "brokers"));
    groups = List.copyOf(requireList(groups, "groups"));
    assignments = assignments == null ? List.of() : List.copyOf(assignments);
    movesInFlight = movesInFlight == null ? List.of() : List.copyOf(movesInFlight);
    settings = settings == null ? PlacementSettings.DEFAULT : settings;
    SnapshotRules.check(brokers, groups, assignments, movesInFlight);
  }

  /** A snapshot with no assignments (every shard is new), no moves in flight and the default settings. */
  public static ClusterSnapshot of(List<Broker> brokers, List<Group> groups) {
    return new ClusterSnapshot(brokers, groups, List.of(), List.of(), PlacementSettings.DEFAULT);
  }

  public ClusterSnapshot withBrokers(List<Broker> newBrokers) {
    return new ClusterSnapshot(newBrokers, groups, assignments, movesInFlight, settings);
  }

  public ClusterSnapshot withGroups(List<Group> newGroups) {
    return new ClusterSnapshot(brokers, newGroups, assignments, movesInFlight, settings);
  }

  public ClusterSnapshot withAssignments(List<Assignment> newAssignments) {
    return new ClusterSnapshot(brokers, groups, newAssignments, movesInFlight, settings);
  }

  public ClusterSnapshot withMovesInFlight(List<MoveInFlight> moves) {
    return new ClusterSnapshot(brokers, groups, assignments, moves, settings);
  }

  public ClusterSnapshot withSettings(PlacementSettings newSettings) {
    return new ClusterSnapshot(brokers, groups, assignments, movesInFlight, newSettings);
  }

  private static <T> List<T> requireList(List<T> list, String name) {
    if (list == null) {
      throw new InvalidLayoutException(name + " is required");
    }
    for (T item : list) {
      if (item == null) {
        throw new InvalidLayoutException(name + " must not contain null");
      }
    }
    return list;
  }
}
