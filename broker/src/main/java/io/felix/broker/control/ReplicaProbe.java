package io.felix.broker.control;

import io.felix.broker.assignment.ShardId;

/**
 * How the placement singleton reaches one broker's replicas (its data plane directory): fence a shard at an
 * epoch, or describe it. Each answer, the replica's {@link io.felix.broker.shard.ReplicaStatus}, arrives at the
 * singleton as {@link PlacementController.ReplicaAnswered}, a failure or timeout as one with no status.
 */
public interface ReplicaProbe {

  /** @return false when the broker's directory is not known (yet), so nothing was sent */
  boolean fence(int brokerId, ShardId shard, long epoch);

  /** @return false when the broker's directory is not known (yet), so nothing was sent */
  boolean describe(int brokerId, ShardId shard);

  /** A receptionist listing the probe subscribed to (delivered through the singleton). */
  default void listed(org.apache.pekko.actor.typed.receptionist.Receptionist.Listing listing) {}
}
