package io.felix.broker.control;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;

/**
 * How the placement singleton reaches one broker's replicas (its data plane directory): fence a shard at an
 * epoch, or describe it. Answers arrive at the singleton as {@link PlacementController.ReplicaAnswered}, a
 * failure or timeout as one with no report.
 */
public interface ReplicaProbe {

  /** @return false when the broker's directory is not known (yet), so nothing was sent */
  boolean fence(int brokerId, ShardId shard, long epoch);

  /** @return false when the broker's directory is not known (yet), so nothing was sent */
  boolean describe(int brokerId, ShardId shard);

  /** A receptionist listing the probe subscribed to (delivered through the singleton). */
  default void listed(org.apache.pekko.actor.typed.receptionist.Receptionist.Listing listing) {}

  /**
   * What one replica reported.
   *
   * @param lastEpoch epoch of the last batch in its log (-1 when empty)
   * @param logEndOffset the next offset its log would assign
   */
  record ReplicaReport(ShardId shard, int brokerId, boolean hosted, ReplicaRole role, long lastEpoch, long logEndOffset,
      long commitOffset, boolean failed) {

    /** Holds at least what {@code other} holds: a later last epoch, or the same one and a log end as far. */
    public int compareLog(ReplicaReport other) {
      int byEpoch = Long.compare(lastEpoch, other.lastEpoch);
      return byEpoch != 0 ? byEpoch : Long.compare(logEndOffset, other.logEndOffset);
    }
  }
}
