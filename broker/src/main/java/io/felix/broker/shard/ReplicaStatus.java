package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.wire.ControlMessage;
import java.util.List;

/**
 * What one broker's replica of a shard holds, as the control plane needs it to fence and promote.
 *
 * @param hosted false when the broker has no replica of the shard (then the role is NONE and the numbers are
 *     meaningless: -1 / 0)
 * @param lastEpoch epoch of the last batch in the local log, -1 when the log is empty (KIP-101 style)
 * @param logEndOffset the next offset the local log would assign
 * @param commitOffset the highest commit offset (high watermark) this replica knows of
 * @param failed true when the replica's log failed (see {@link FailedReplica}) and it serves nothing
 * @param recovering true while the replica restarts without its data (a wiped directory) and has not yet copied the
 *     leader's log up to the commit offset: it may hold less than was committed, so it never leads, counts towards
 *     no failover quorum and is never promoted
 * @param promisedEpoch the highest epoch the replica has persisted as promised (fenced at, followed, led), -1 for
 *     none: a failover round must fence above it
 * @param inSync a leader's in-sync replicas, itself included, in ascending broker id order; empty for any other
 *     role (only the leader knows who keeps up with it)
 * @param logStartOffset the first offset the local log holds (retention moves it forward); 0 when not hosted
 */
public record ReplicaStatus(
    ShardId id, int brokerId, boolean hosted, ReplicaRole role, long lastEpoch, long logEndOffset, long commitOffset,
    boolean failed, boolean recovering, long promisedEpoch, List<Integer> inSync, long logStartOffset)
    implements ControlMessage {

  public ReplicaStatus {
    inSync = List.copyOf(inSync);
  }

  /** A status without the log start offset (0). */
  public ReplicaStatus(ShardId id, int brokerId, boolean hosted, ReplicaRole role, long lastEpoch, long logEndOffset,
      long commitOffset, boolean failed, boolean recovering, long promisedEpoch, List<Integer> inSync) {
    this(id, brokerId, hosted, role, lastEpoch, logEndOffset, commitOffset, failed, recovering, promisedEpoch, inSync,
        0);
  }

  /** The status of a replica that is not a leader (no in-sync set). */
  public ReplicaStatus(ShardId id, int brokerId, boolean hosted, ReplicaRole role, long lastEpoch, long logEndOffset,
      long commitOffset, boolean failed, boolean recovering, long promisedEpoch) {
    this(id, brokerId, hosted, role, lastEpoch, logEndOffset, commitOffset, failed, recovering, promisedEpoch,
        List.of());
  }

  public static ReplicaStatus notHosted(ShardId id, int brokerId) {
    return new ReplicaStatus(id, brokerId, false, ReplicaRole.NONE, -1, 0, 0, false, false, -1);
  }

  /** A replica this broker has started that has not yet opened its log: it cannot say what it holds yet. */
  public static ReplicaStatus starting(ShardId id, int brokerId) {
    return new ReplicaStatus(id, brokerId, true, ReplicaRole.STARTING, -1, 0, 0, false, false, -1);
  }

  /** A hosted replica whose log failed: it holds nothing it would serve. */
  public static ReplicaStatus failed(ShardId id, int brokerId) {
    return new ReplicaStatus(id, brokerId, true, ReplicaRole.FAILED, -1, 0, 0, true, false, -1);
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
