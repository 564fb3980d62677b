package io.felix.placement;

/**
 * A move already started: the replica on {@code from} is being replaced by {@code to} (or, when {@code to} already
 * holds a replica, leadership is being handed from {@code from} to {@code to}). Placement counts it as finished and
 * counts it against the move limits.
 */
public record MoveInFlight(String group, int shard, int from, int to) {

  public MoveInFlight {
    if (group == null || group.isEmpty()) {
      throw new InvalidLayoutException("move in flight: group is required");
    }
    if (from == to) {
      throw new InvalidLayoutException("move in flight " + group + "/" + shard + ": from and to are both " + from);
    }
  }
}
