package io.felix.broker.control;

import io.felix.broker.shard.ReplicaRole;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaStatus;

/** Replica answers as the tests feed them back; the role is not read by the control plane, only shown. */
final class TestReplicas {

  private TestReplicas() {}

  /** A hosted, sound replica whose last batch is of {@code lastEpoch} and whose log ends at {@code logEnd}. */
  static ReplicaStatus holding(ShardId shard, int brokerId, long lastEpoch, long logEnd) {
    return new ReplicaStatus(shard, brokerId, true, ReplicaRole.FENCED, lastEpoch, logEnd, 0, false, false,
        lastEpoch);
  }

  /** A replica that restarted without its data and has not caught up with a leader yet. */
  static ReplicaStatus recovering(ShardId shard, int brokerId, long logEnd) {
    return new ReplicaStatus(shard, brokerId, true, ReplicaRole.FOLLOWER, -1, logEnd, 0, false, true, -1);
  }

  /** A hosted, sound replica that has persisted a promise of {@code promisedEpoch}. */
  static ReplicaStatus promised(ShardId shard, int brokerId, long lastEpoch, long logEnd, long promisedEpoch) {
    return new ReplicaStatus(shard, brokerId, true, ReplicaRole.FENCED, lastEpoch, logEnd, 0, false, false,
        promisedEpoch);
  }

  /** The broker answered without a replica of the shard (restarted, or its actor stopped). */
  static ReplicaStatus notHosted(ShardId shard, int brokerId) {
    return ReplicaStatus.notHosted(shard, brokerId);
  }
}
