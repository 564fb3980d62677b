package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;

/** Where a replica says it is assigned to lead {@code shard} at {@code epoch} but does not: the placement singleton. */
@FunctionalInterface
public interface NotServingSink {

  /** Until the control plane is wired: reports go nowhere. */
  NotServingSink NONE = (shard, brokerId, epoch, reason) -> {};

  void report(ShardId shard, int brokerId, long epoch, NotServingReason reason);
}
