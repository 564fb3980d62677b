package io.felix.broker.assignment;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;

/**
 * Who holds a shard and who leads it, as decided by the placement singleton.
 *
 * @param replicas the replica set, leader included; a majority of it acknowledges a {@code quorum} write
 * @param learners staged copies being filled for a move: they receive the log like followers but count
 *     toward no quorum and are never in sync for {@code all} acks until a new assignment makes them replicas
 * @param leader the broker id of the leader, or {@link #NO_LEADER} while the shard has none
 * @param leaderEpoch grows with every leadership change; every append, replication message and ack carries it
 * @param incarnation the stream's incarnation: a stream deleted and created again under the same name gets a new
 *     one, so its replicas never take an old log, or an old leader's records, for theirs (null: the stream's
 *     {@link #legacyIncarnation}, for tables and journals written before incarnations existed)
 */
public record ShardAssignment(ShardId id, List<Integer> replicas, List<Integer> learners, int leader, long leaderEpoch,
    UUID incarnation) {

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
    if (incarnation == null) {
      incarnation = legacyIncarnation(id.stream());
    }
  }

  /** An assignment of the stream's {@link #legacyIncarnation}. */
  public ShardAssignment(ShardId id, List<Integer> replicas, List<Integer> learners, int leader, long leaderEpoch) {
    this(id, replicas, learners, leader, leaderEpoch, null);
  }

  /** The incarnation of a stream created before incarnations existed: derived from its name alone. */
  public static UUID legacyIncarnation(String stream) {
    return UUID.nameUUIDFromBytes(("felix-stream:" + stream).getBytes(StandardCharsets.UTF_8));
  }

  public boolean hostedBy(int brokerId) {
    return replicas.contains(brokerId) || learners.contains(brokerId);
  }

  /** A majority of the replica set: the number of stored copies a {@code quorum} write needs. */
  public int quorumSize() {
    return replicas.size() / 2 + 1;
  }
}
