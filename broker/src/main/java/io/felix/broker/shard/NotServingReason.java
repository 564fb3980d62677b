package io.felix.broker.shard;

/**
 * Why a replica that the assignment table names as its shard's leader does not lead, as it reports it to the
 * placement singleton (see {@link ReplicaRegistry#reportNotServingTo}).
 */
public enum NotServingReason {
  /** The assigned epoch was granted before the replica (re)started (it may have used it): only a newer one is safe. */
  EPOCH_HELD_BEFORE_RESTART,
  /** It was fenced at (or followed a leader at) a newer epoch than the one it is assigned to lead at. */
  FENCED_ABOVE_EPOCH,
  /** It lost its data (a wiped directory) and has not yet copied a leader's log up to the commit offset. */
  RECOVERING,
  /** Its log failed (it could not be opened, or a write or fsync failed): it serves nothing until it reopens. */
  LOG_FAILED
}
