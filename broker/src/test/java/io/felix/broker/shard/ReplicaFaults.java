package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.DataPlane;

/** Faults injected into a broker's replicas from tests in other packages. */
public final class ReplicaFaults {

  private ReplicaFaults() {}

  /** Stops the shard's replica actor without retiring it, as an exception in it would; its directory respawns it. */
  public static void stopUnretired(DataPlane plane, ShardId shard) {
    plane.directory().tell(new ReplicaDirectory.StopReplicaUnretired(shard));
  }
}
