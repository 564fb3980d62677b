package io.felix.broker.control;

import io.felix.broker.assignment.ShardId;
import java.util.List;
import java.util.Map;

/**
 * How the placement singleton reaches one broker's replicas (its data plane directory): fence a shard at an
 * epoch, or describe it. Each answer, the replica's {@link io.felix.broker.shard.ReplicaStatus}, arrives at the
 * singleton as part of a {@link PlacementController.ReplicasAnswered}; a replica that does not answer in time is
 * simply missing from it.
 *
 * <p>The questions are asked per shard but sent in batches: nothing leaves before {@link #flush}, which sends at
 * most one message per broker and kind (more only past {@link DirectoryProbe#MAX_SHARDS_PER_MESSAGE} shards), so a
 * failover round of ten thousand shards is a handful of messages, not ten thousand asks.
 */
public interface ReplicaProbe {

  /** @return false when the broker's directory is not known (yet), so nothing will be sent */
  boolean fence(int brokerId, ShardId shard, long epoch);

  /** @return false when the broker's directory is not known (yet), so nothing will be sent */
  boolean describe(int brokerId, ShardId shard);

  /**
   * Asks only for the role the broker's replica of {@code shard} published (its role board answers at once, without
   * asking the replica; offsets not current): what the leader check needs. Its answer says so
   * ({@link #answersRolesOnly}).
   *
   * @return false when the broker's role board is not known (yet), so nothing will be sent
   */
  default boolean describeRole(int brokerId, ShardId shard) {
    return describe(brokerId, shard);
  }

  /**
   * Whether the answer to request {@code requestId} holds published roles only ({@link #describeRole}): its offsets
   * are not current, so only the leader check may read it. Such requests have negative ids.
   */
  static boolean answersRolesOnly(long requestId) {
    return requestId < 0;
  }

  /** Sends what was asked since the last flush. */
  default void flush() {}

  /**
   * The fence epoch each shard of an answered request was fenced at, empty for a describe (or a request this probe
   * no longer knows); forgets the request.
   */
  default Map<ShardId, Long> answered(long requestId) {
    return Map.of();
  }

  /**
   * The shards a roles-only request ({@link #describeRole}) asked about, empty for a request this probe no longer
   * knows; forgets the request. Its answer lists only the replicas that do not lead: the others lead.
   */
  default List<ShardId> rolesAsked(long requestId) {
    return List.of();
  }

  /** A receptionist listing the probe subscribed to (delivered through the singleton). */
  default void listed(org.apache.pekko.actor.typed.receptionist.Receptionist.Listing listing) {}
}
