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

  /**
   * A broker announced itself (first time, or again with changed endpoints, zone, cap or capacity).
   *
   * @param replicaCapacity the replicas it can host, from its open-file limit and heap; 0 when not said (journals
   *     written before this field)
   */
  record BrokerJoined(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint, int replicaCapacity)
      implements PlacementEvent {
    public BrokerJoined(int brokerId, String zone, int maxShards, BrokerEndpoint endpoint) {
      this(brokerId, zone, maxShards, endpoint, 0);
    }
  }

  /** An operator asked for every shard to be moved off the broker; it takes nothing new. */
  record BrokerDraining(int brokerId) implements PlacementEvent {}

  /** An operator stopped a drain: the broker takes shards again (moves already made stay; rebalancing evens out). */
  record BrokerUndrained(int brokerId) implements PlacementEvent {}

  /** A drained broker was removed from the cluster's broker list. */
  record BrokerRemoved(int brokerId) implements PlacementEvent {}

  /**
   * A stream was created, with the first assignment of every shard: one event however many shards, so a 10,000-shard
   * stream is one journal write and one fold.
   *
   * @param incarnation new for every creation (null in journals written before incarnations: then the stream's
   *     {@link io.felix.broker.assignment.ShardAssignment#legacyIncarnation})
   * @param config the stream's own settings (null in journals written before them: {@link StreamConfig#DEFAULTS})
   * @param placed each shard's first assignment (null in journals written before this field: there separate
   *     {@link ShardPlaced} events followed)
   */
  record StreamCreated(String stream, int shards, int replicationFactor, UUID incarnation, StreamConfig config,
      List<ShardPlaced> placed) implements PlacementEvent {
    public StreamCreated {
      if (incarnation == null) {
        incarnation = ShardAssignment.legacyIncarnation(stream);
      }
      if (config == null) {
        config = StreamConfig.DEFAULTS;
      }
      placed = placed == null ? List.of() : List.copyOf(placed);
    }

    /** A stream with the default settings whose shards are placed by separate events. */
    public StreamCreated(String stream, int shards, int replicationFactor, UUID incarnation) {
      this(stream, shards, replicationFactor, incarnation, null, null);
    }

    /** A stream whose shards are placed by separate events. */
    public StreamCreated(String stream, int shards, int replicationFactor, UUID incarnation, StreamConfig config) {
      this(stream, shards, replicationFactor, incarnation, config, null);
    }
  }

  /** Its replicas stop and delete their data once they see a table without the stream. */
  record StreamDeleted(String stream) implements PlacementEvent {}

  /** A new shard got its replica set and first leader (epoch 1). */
  record ShardPlaced(ShardId shard, List<Integer> replicas, int leader, long epoch) implements PlacementEvent {}

  /** Failover: the replicas of a majority were fenced at {@code epoch} and {@code leader} holds every committed record. */
  record LeaderPromoted(ShardId shard, int leader, long epoch, int previousLeader) implements PlacementEvent {}

  /** Several new shards placed at once (a placement pass, shards added to a stream): one event, one fold. */
  record ShardsPlaced(List<ShardPlaced> placed) implements PlacementEvent {
    public ShardsPlaced {
      placed = List.copyOf(placed);
    }
  }

  /**
   * What one failover pass decided, as one event whatever the number of shards: the moves it aborted, then the leaders
   * it promoted (folded in that order; a shard's abort and promotion carry the same epoch).
   */
  record FailoverDecided(List<MoveAborted> aborted, List<LeaderPromoted> promoted) implements PlacementEvent {
    public FailoverDecided {
      aborted = aborted == null ? List.of() : List.copyOf(aborted);
      promoted = promoted == null ? List.of() : List.copyOf(promoted);
    }

    /** The pass's decisions ({@link MoveAborted} and {@link LeaderPromoted}, as {@link FailoverRounds} returns them). */
    static FailoverDecided of(List<PlacementEvent> decisions) {
      List<MoveAborted> aborted = new java.util.ArrayList<>();
      List<LeaderPromoted> promoted = new java.util.ArrayList<>();
      for (PlacementEvent d : decisions) {
        if (d instanceof MoveAborted m) {
          aborted.add(m);
        } else if (d instanceof LeaderPromoted p) {
          promoted.add(p);
        } else {
          throw new IllegalArgumentException("a failover decides promotions and aborted moves only, not " + d);
        }
      }
      return new FailoverDecided(aborted, promoted);
    }
  }


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
