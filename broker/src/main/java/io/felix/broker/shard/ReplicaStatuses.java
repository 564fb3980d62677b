package io.felix.broker.shard;

import io.felix.broker.wire.ControlMessage;
import java.util.List;

/**
 * One broker's answer to a batched {@link ReplicaDirectory.FenceShards} or {@link ReplicaDirectory.DescribeReplicas}:
 * the status of every replica that answered within the request's time, in no particular order. A shard missing from
 * {@code statuses} did not answer in time (its replica is busy); it says nothing about the replica.
 *
 * @param requestId the request's id, so the asker can tell which question this answers
 * @param tableVersion the version of the assignment table the broker had applied when asked (0 before its first):
 *     a replica it does not host, or that follows, may only not have been appointed there yet
 */
public record ReplicaStatuses(long requestId, int brokerId, long tableVersion, List<ReplicaStatus> statuses)
    implements ControlMessage {
  public ReplicaStatuses {
    statuses = List.copyOf(statuses);
  }
}
