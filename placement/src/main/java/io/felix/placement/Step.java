package io.felix.placement;

import java.util.List;

/**
 * One decision of a plan, carrying the assignment it leads to so the control plane can propose it as is.
 *
 * <ul>
 *   <li>{@code place}: a new shard; {@code from} is null, {@code to} is the leader.
 *   <li>{@code promote}: the leader {@code from} failed (null if the shard had none); {@code to} now leads.
 *   <li>{@code move}: a replica or leadership goes from {@code from} to {@code to}. When {@code to} already held a
 *       replica it is a leadership transfer ({@link #isLeadershipTransfer()}); otherwise {@code to} gets a staged
 *       copy and {@code from} leaves the replica set. A drain can move a follower: the leader then stays.
 * </ul>
 *
 * @param leader the shard's leader once the step is done
 * @param replicas the shard's replica set once the step is done: a new shard lists its leader first; a staged copy
 *     takes the place of the replica it replaces, so the order of the others is kept
 */
public record Step(
    Action action, Reason reason, String group, int shard, Integer from, int to, int leader, List<Integer> replicas) {

  public Step {
    replicas = List.copyOf(replicas);
  }

  /** A move whose destination already held a replica: no data is copied and the replica set stays the same. */
  public boolean isLeadershipTransfer() {
    return action == Action.MOVE && from != null && replicas.contains(from);
  }

  @Override
  public String toString() {
    return action.wireName() + "(" + reason.wireName() + ") " + group + "/" + shard + " " + from + "->" + to
        + " leader " + leader + " replicas " + replicas;
  }
}
