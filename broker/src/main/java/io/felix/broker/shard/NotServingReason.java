package io.felix.broker.shard;

/**
 * Why a replica that the assignment table names as its shard's leader does not lead, as it reports it to the
 * placement singleton (see {@link ReplicaRegistry#reportNotServingTo}).
 */
public enum NotServingReason {
  /** Its log already held the assigned epoch when the replica (re)started: only a newer epoch is safe to lead at. */
  EPOCH_HELD_BEFORE_RESTART,
  /** It was fenced at a newer epoch than the one it is assigned to lead at. */
  FENCED_ABOVE_EPOCH
}
