package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.protocol.replication.ShardRef;

/**
 * A {@link ShardId} as protobuf messages name it, on the replication connection and on Artery alike (the
 * Artery mapping, above this package, uses it too).
 */
public final class ShardRefs {

  private ShardRefs() {}

  public static ShardRef toRef(ShardId id) {
    return ShardRef.newBuilder().setStream(id.stream()).setShard(id.shard()).build();
  }

  /** @throws IllegalArgumentException for an empty stream name or a negative shard */
  public static ShardId toId(ShardRef ref) {
    return new ShardId(ref.getStream(), ref.getShard());
  }
}
