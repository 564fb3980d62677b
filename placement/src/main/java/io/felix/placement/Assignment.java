package io.felix.placement;

import java.util.HashSet;
import java.util.List;

/**
 * Who holds a shard and who leads it.
 *
 * @param leader the leading broker, or {@link #NO_LEADER} while the shard has none (it is then promoted)
 * @param replicas the replica set, leader included, in the order the control plane keeps it
 * @param inSync the replicas that may be promoted if the leader fails; defaults to {@code replicas}
 */
public record Assignment(String group, int shard, int leader, List<Integer> replicas, List<Integer> inSync) {

  public static final int NO_LEADER = -1;

  public Assignment {
    if (group == null || group.isEmpty()) {
      throw new InvalidLayoutException("assignment: group is required");
    }
    String where = group + "/" + shard;
    if (shard < 0) {
      throw new InvalidLayoutException("assignment " + where + ": shard must be >= 0");
    }
    if (replicas == null || replicas.isEmpty()) {
      throw new InvalidLayoutException("assignment " + where + ": replicas must not be empty");
    }
    replicas = List.copyOf(replicas);
    inSync = inSync == null ? replicas : List.copyOf(inSync);
    if (new HashSet<>(replicas).size() != replicas.size()) {
      throw new InvalidLayoutException("assignment " + where + ": duplicate broker in replicas " + replicas);
    }
    if (leader != NO_LEADER && !replicas.contains(leader)) {
      throw new InvalidLayoutException(
          "assignment " + where + ": leader " + leader + " is not in replicas " + replicas);
    }
    for (Integer broker : inSync) {
      if (!replicas.contains(broker)) {
        throw new InvalidLayoutException(
            "assignment " + where + ": in-sync broker " + broker + " is not in replicas " + replicas);
      }
    }
  }

  /** An assignment whose replicas are all in sync. */
  public Assignment(String group, int shard, int leader, List<Integer> replicas) {
    this(group, shard, leader, replicas, null);
  }
}
