package io.felix.broker.assignment;

import java.util.List;

/**
 * Who holds a shard and who leads it, as decided by the placement singleton.
 *
 * @param replicas the replica set, leader included; a majority of it acknowledges a {@code quorum} write
 * @param learners staged copies being filled for a move: they receive the log like followers but count
 *     toward no quorum and are never in sync for {@code all} acks until a new assignment makes them replicas
 * @param leader the broker id of the leader, or {@link #NO_LEADER} while the shard has none
 * @param leaderEpoch grows with every leadership change; every append, replication message and ack carries it
 */
public record ShardAssignment(ShardId id, List<Integer> replicas, List<Integer> learners, int leader, long leaderEpoch) {

  public static final int NO_LEADER = -1;

  public ShardAssignment {
    replicas = List.copyOf(replicas);
    learners = List.copyOf(learners);
    if (replicas.isEmpty()) {
      throw new IllegalArgumentException(id + ": replica set must not be empty");
    }
    if (leader != NO_LEADER && !replicas.contains(leader)) {
      throw new IllegalArgumentException(id + ": leader " + leader + " is not in replica set " + replicas);
    }
    if (leaderEpoch < 0) {
      throw new IllegalArgumentException(id + ": leader epoch must be >= 0, got " + leaderEpoch);
    }
  }

  public boolean hostedBy(int brokerId) {
    return replicas.contains(brokerId) || learners.contains(brokerId);
  }

  /** A majority of the replica set: the number of stored copies a {@code quorum} write needs. */
  public int quorumSize() {
    return replicas.size() / 2 + 1;
  }
}
