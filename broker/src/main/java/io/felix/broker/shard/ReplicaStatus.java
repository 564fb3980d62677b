package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.wire.ControlMessage;

/**
 * What one broker's replica of a shard holds, as the control plane needs it to fence and promote.
 *
 * @param hosted false when the broker has no replica of the shard (then the role is NONE and the numbers are
 *     meaningless: -1 / 0)
 * @param lastEpoch epoch of the last batch in the local log, -1 when the log is empty (KIP-101 style)
 * @param logEndOffset the next offset the local log would assign
 * @param commitOffset the highest commit offset (high watermark) this replica knows of
 * @param failed true when the replica's log is corrupt and it serves nothing
 * @param recovering true while the replica restarts without its data (a wiped directory) and has not yet copied the
 *     leader's log up to the commit offset: it may hold less than was committed, so it never leads, counts towards
 *     no failover quorum and is never promoted
 * @param promisedEpoch the highest epoch the replica has persisted as promised (fenced at, followed, led), -1 for
 *     none: a failover round must fence above it
 */
public record ReplicaStatus(
    ShardId id, int brokerId, boolean hosted, ReplicaRole role, long lastEpoch, long logEndOffset, long commitOffset,
    boolean failed, boolean recovering, long promisedEpoch) implements ControlMessage {

  public static ReplicaStatus notHosted(ShardId id, int brokerId) {
    return new ReplicaStatus(id, brokerId, false, ReplicaRole.NONE, -1, 0, 0, false, false, -1);
  }

  /**
   * Orders replicas by what their logs hold, as failover chooses: a later last epoch first, then, with the same
   * one, the longer log. Zero means the two hold the same.
   */
  public int compareLog(ReplicaStatus other) {
    int byEpoch = Long.compare(lastEpoch, other.lastEpoch);
    return byEpoch != 0 ? byEpoch : Long.compare(logEndOffset, other.logEndOffset);
  }
}
