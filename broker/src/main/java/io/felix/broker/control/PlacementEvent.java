package io.felix.broker.control;

import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.security.SecurityEvent;
import java.util.List;
import java.util.UUID;

/**
 * What the placement singleton decided, in the past tense. The singleton's state is a fold of these
 * ({@link ControlState#apply}), so a singleton restarted on another broker recovers exactly what was decided.
 * Stored with Jackson CBOR (see {@link JournalRecord}); add fields only with defaults, never rename.
 */
public sealed interface PlacementEvent extends JournalRecord {

  /** A broker announced itself (first time, or again with changed endpoints, zone or cap). */
  record BrokerJoined(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint) implements PlacementEvent {}

  /** An operator asked for every shard to be moved off the broker; it takes nothing new. */
  record BrokerDraining(int brokerId) implements PlacementEvent {}

  /** An operator stopped a drain: the broker takes shards again (moves already made stay; rebalancing evens out). */
  record BrokerUndrained(int brokerId) implements PlacementEvent {}

  /** A drained broker was removed from the cluster's broker list. */
  record BrokerRemoved(int brokerId) implements PlacementEvent {}

  /**
   * @param incarnation new for every creation (null in journals written before incarnations: then the stream's
   *     {@link io.felix.broker.assignment.ShardAssignment#legacyIncarnation})
   * @param config the stream's own settings (null in journals written before them: {@link StreamConfig#DEFAULTS})
   */
  record StreamCreated(String stream, int shards, int replicationFactor, UUID incarnation, StreamConfig config)
      implements PlacementEvent {
    public StreamCreated {
      if (incarnation == null) {
        incarnation = ShardAssignment.legacyIncarnation(stream);
      }
      if (config == null) {
        config = StreamConfig.DEFAULTS;
      }
    }

    /** A stream with the default settings. */
    public StreamCreated(String stream, int shards, int replicationFactor, UUID incarnation) {
      this(stream, shards, replicationFactor, incarnation, null);
    }
  }

  /** Its replicas stop and delete their data once they see a table without the stream. */
  record StreamDeleted(String stream) implements PlacementEvent {}

  /** A new shard got its replica set and first leader (epoch 1). */
  record ShardPlaced(ShardId shard, List<Integer> replicas, int leader, long epoch) implements PlacementEvent {}

  /** Failover: the replicas of a majority were fenced at {@code epoch} and {@code leader} holds every committed record. */
  record LeaderPromoted(ShardId shard, int leader, long epoch, int previousLeader) implements PlacementEvent {}

  /**
   * A move began. {@code staged}: {@code to} holds no replica and receives a full copy as a learner first.
   * {@code from} may be the leader (a leader move) or a follower (a drain moving a follower off).
   */
  record MoveStarted(long moveId, ShardId shard, int from, int to, boolean staged, String reason, long atMillis)
      implements PlacementEvent {}

  /** The shard's leader was told to stop taking appends at {@code epoch}: the destination now catches up. */
  record MoveFenced(ShardId shard, long epoch) implements PlacementEvent {}

  /** Cut-over: the shard has {@code replicas} and {@code leader} at {@code epoch}. */
  record MoveCompleted(ShardId shard, List<Integer> replicas, int leader, long epoch, long atMillis)
      implements PlacementEvent {}

  /** The move was given up; the old leader leads again at {@code epoch}. */
  record MoveAborted(ShardId shard, long epoch, String reason, long atMillis) implements PlacementEvent {}

  record PlacementPaused(long atMillis) implements PlacementEvent {}

  record PlacementResumed(long atMillis) implements PlacementEvent {}

  /**
   * A broker holds a table of version {@code heldVersion} or newer than this state's (the journal lost decisions
   * it had published): the next table is numbered above it, so no version is issued twice with different content.
   */
  record TableVersionRaised(long heldVersion) implements PlacementEvent {}

  /** PATCH /v1/streams/{name}: the stream's settings are now {@code config} (the whole of them, not the change). */
  record StreamConfigChanged(String stream, StreamConfig config) implements PlacementEvent {}

  /** PATCH raised the stream's shard count to {@code shards}; the new shards' {@link ShardPlaced} events follow. */
  record StreamShardsAdded(String stream, int shards) implements PlacementEvent {}

  /**
   * Producer ids {@code [firstId, firstId + count)} went to broker {@code brokerId}, which hands them to idempotent
   * producers; none of them is allocated again.
   */
  record ProducerIdsAllocated(int brokerId, long firstId, int count) implements PlacementEvent {}

  /** Users, tokens or ACLs changed (see {@link SecurityEvent}); the assignment table does not. */
  record SecurityChanged(SecurityEvent change) implements PlacementEvent {}
}
