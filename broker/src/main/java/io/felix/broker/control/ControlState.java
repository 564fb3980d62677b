package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.PlacementEvent.BrokerDraining;
import io.felix.broker.control.PlacementEvent.BrokerJoined;
import io.felix.broker.control.PlacementEvent.BrokerRemoved;
import io.felix.broker.control.PlacementEvent.BrokerUndrained;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.PlacementPaused;
import io.felix.broker.control.PlacementEvent.PlacementResumed;
import io.felix.broker.control.PlacementEvent.ProducerIdsAllocated;
import io.felix.broker.control.PlacementEvent.SecurityChanged;
import io.felix.broker.security.SecurityState;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.ShardsPlaced;
import io.felix.broker.control.PlacementEvent.FailoverDecided;
import io.felix.broker.control.PlacementEvent.StreamConfigChanged;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import io.felix.broker.control.PlacementEvent.StreamShardsAdded;
import io.felix.broker.control.PlacementEvent.StreamDeleted;
import io.felix.broker.control.PlacementEvent.TableVersionRaised;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;

/**
 * The placement singleton's state: a pure fold of {@link PlacementEvent}s, also its snapshot (Jackson CBOR, see
 * {@link JournalRecord}); it crosses Artery only inside a {@link ControlView}.
 * Every event bumps {@code tableVersion}, so the table a restarted singleton pushes is never older than one
 * any broker already holds, as long as the journal kept every event; {@link TableVersionRaised} covers the case
 * where it did not. Learners are not kept in {@code shards}: they are the staged moves in flight.
 */
public record ControlState(
    Map<Integer, BrokerRecord> brokers,
    Map<String, StreamRecord> streams,
    Map<ShardId, ShardAssignment> shards,
    Map<ShardId, MoveRecord> moves,
    List<MoveRecord> recentMoves,
    boolean paused,
    long tableVersion,
    long nextMoveId,
    long nextProducerId,
    SecurityState security) implements JournalRecord {

  /** Finished moves kept in the state (the admin API may show fewer). */
  static final int RECENT_MOVES_KEPT = 100;

  public static final ControlState EMPTY =
      new ControlState(Map.of(), Map.of(), Map.of(), Map.of(), List.of(), false, 0, 1, 0);

  public ControlState {
    brokers = frozen(brokers);
    streams = frozen(streams);
    shards = frozen(shards);
    moves = frozen(moves);
    recentMoves = List.copyOf(recentMoves);
    if (security == null) {
      security = SecurityState.EMPTY; // snapshots written before security
    }
  }

  /** Without users, tokens or ACLs. */
  public ControlState(Map<Integer, BrokerRecord> brokers, Map<String, StreamRecord> streams,
      Map<ShardId, ShardAssignment> shards, Map<ShardId, MoveRecord> moves, List<MoveRecord> recentMoves,
      boolean paused, long tableVersion, long nextMoveId, long nextProducerId) {
    this(brokers, streams, shards, moves, recentMoves, paused, tableVersion, nextMoveId, nextProducerId, null);
  }

  /**
   * A broker as the control plane knows it; {@code zone} is empty for none, {@code maxShards} 0 for no cap.
   *
   * @param replicaCapacity the replicas the broker says it can host (its open-file limit and heap), 0 when it did
   *     not say (a broker of an older version, or a snapshot written before it)
   */
  public record BrokerRecord(int id, String zone, int maxShards, BrokerEndpoint endpoint, boolean draining,
      int replicaCapacity) {

    public BrokerRecord(int id, String zone, int maxShards, BrokerEndpoint endpoint, boolean draining) {
      this(id, zone, maxShards, endpoint, draining, 0);
    }

    BrokerRecord withDraining(boolean now) {
      return new BrokerRecord(id, zone, maxShards, endpoint, now, replicaCapacity);
    }
  }

  /**
   * @param incarnation new for every creation of the name (null: the name's legacy incarnation)
   * @param config the stream's own settings (null in snapshots written before them: the defaults)
   */
  public record StreamRecord(String name, int shards, int replicationFactor, UUID incarnation, StreamConfig config) {
    public StreamRecord {
      if (incarnation == null) {
        incarnation = ShardAssignment.legacyIncarnation(name);
      }
      if (config == null) {
        config = StreamConfig.DEFAULTS;
      }
    }

    public StreamRecord(String name, int shards, int replicationFactor, UUID incarnation) {
      this(name, shards, replicationFactor, incarnation, null);
    }
  }

  /**
   * A move, in flight or finished.
   *
   * @param fenceEpoch the epoch the leader was fenced at, 0 until then
   * @param state in flight, completed or aborted
   */
  public record MoveRecord(
      long moveId, ShardId shard, int from, int to, boolean staged, String reason, long startedAtMillis,
      long fenceEpoch, MoveState state, long endedAtMillis, String detail) {

    MoveRecord fenced(long epoch) {
      return new MoveRecord(moveId, shard, from, to, staged, reason, startedAtMillis, epoch, state, endedAtMillis, detail);
    }

    MoveRecord ended(MoveState newState, long atMillis, String why) {
      return new MoveRecord(moveId, shard, from, to, staged, reason, startedAtMillis, fenceEpoch, newState, atMillis, why);
    }
  }

  public ControlState apply(PlacementEvent event) {
    if (event instanceof SecurityChanged e) { // the table is unchanged, so its version too
      return new ControlState(brokers, streams, shards, moves, recentMoves, paused, tableVersion, nextMoveId,
          nextProducerId, security.apply(e.change()));
    }
    Fold fold = new Fold(this);
    fold.apply(event);
    long version = event instanceof TableVersionRaised e ? Math.max(tableVersion, e.heldVersion()) : tableVersion;
    return new ControlState(fold.brokers, fold.streams, fold.shards, fold.moves, fold.recent, fold.paused,
        version + 1, fold.nextMoveId, fold.nextProducerId, security);
  }

  /**
   * The state being changed by one event, on mutable copies made once per event: an event that places or promotes
   * thousands of shards ({@link StreamCreated}, {@link ShardsPlaced}, {@link FailoverDecided}) costs one copy of the
   * maps, not one per shard.
   */
  private static final class Fold {
    final Folded<Integer, BrokerRecord> brokers;
    final Folded<String, StreamRecord> streams;
    final Folded<ShardId, ShardAssignment> shards;
    final Folded<ShardId, MoveRecord> moves;
    final List<MoveRecord> recent;
    boolean paused;
    long nextMoveId;
    long nextProducerId;

    Fold(ControlState from) {
      brokers = new Folded<>(from.brokers);
      streams = new Folded<>(from.streams);
      shards = new Folded<>(from.shards);
      moves = new Folded<>(from.moves);
      recent = new ArrayList<>(from.recentMoves);
      paused = from.paused;
      nextMoveId = from.nextMoveId;
      nextProducerId = from.nextProducerId;
    }

    // Java 17: no pattern matching for switch yet, hence the instanceof chain.
    void apply(PlacementEvent event) {
      if (event instanceof BrokerJoined e) {
        BrokerRecord old = brokers.get(e.brokerId());
        brokers.put(e.brokerId(), new BrokerRecord(e.brokerId(), e.zone(), e.maxShards(), e.endpoint(),
            old != null && old.draining(), e.replicaCapacity()));
      } else if (event instanceof BrokerDraining e) {
        brokers.put(e.brokerId(), brokers.get(e.brokerId()).withDraining(true));
      } else if (event instanceof BrokerUndrained e) {
        brokers.put(e.brokerId(), brokers.get(e.brokerId()).withDraining(false));
      } else if (event instanceof BrokerRemoved e) {
        brokers.remove(e.brokerId());
      } else if (event instanceof StreamCreated e) {
        streams.put(e.stream(), new StreamRecord(e.stream(), e.shards(), e.replicationFactor(), e.incarnation(),
            e.config()));
        e.placed().forEach(this::apply);
      } else if (event instanceof StreamConfigChanged e) {
        streams.computeIfPresent(e.stream(), (name, s) -> new StreamRecord(name, s.shards(), s.replicationFactor(),
            s.incarnation(), e.config()));
      } else if (event instanceof StreamShardsAdded e) {
        streams.computeIfPresent(e.stream(), (name, s) -> new StreamRecord(name, e.shards(), s.replicationFactor(),
            s.incarnation(), s.config()));
      } else if (event instanceof StreamDeleted e) {
        streams.remove(e.stream());
        shards.keySet().removeIf(id -> id.stream().equals(e.stream()));
        moves.keySet().removeIf(id -> id.stream().equals(e.stream()));
      } else if (event instanceof ShardPlaced e) {
        StreamRecord stream = streams.get(e.shard().stream());
        shards.put(e.shard(), new ShardAssignment(e.shard(), e.replicas(), List.of(), e.leader(), e.epoch(),
            stream == null ? null : stream.incarnation()));
      } else if (event instanceof ShardsPlaced e) {
        e.placed().forEach(this::apply);
      } else if (event instanceof LeaderPromoted e) {
        ShardAssignment a = shards.get(e.shard());
        shards.put(e.shard(), new ShardAssignment(e.shard(), a.replicas(), List.of(), e.leader(), e.epoch(),
            a.incarnation()));
      } else if (event instanceof FailoverDecided e) {
        e.aborted().forEach(this::apply);
        e.promoted().forEach(this::apply);
      } else if (event instanceof MoveStarted e) {
        moves.put(e.shard(), new MoveRecord(e.moveId(), e.shard(), e.from(), e.to(), e.staged(), e.reason(),
            e.atMillis(), 0, MoveState.IN_FLIGHT, 0, ""));
        nextMoveId = Math.max(nextMoveId, e.moveId() + 1);
      } else if (event instanceof MoveFenced e) {
        moves.computeIfPresent(e.shard(), (id, m) -> m.fenced(e.epoch()));
      } else if (event instanceof MoveCompleted e) {
        ShardAssignment a = shards.get(e.shard());
        shards.put(e.shard(), new ShardAssignment(e.shard(), e.replicas(), List.of(), e.leader(), e.epoch(),
            a == null ? null : a.incarnation()));
        MoveRecord m = moves.remove(e.shard());
        if (m != null) {
          remember(recent, m.ended(MoveState.COMPLETED, e.atMillis(), ""));
        }
      } else if (event instanceof MoveAborted e) {
        ShardAssignment a = shards.get(e.shard());
        shards.put(e.shard(), new ShardAssignment(e.shard(), a.replicas(), List.of(), a.leader(), e.epoch(),
            a.incarnation()));
        MoveRecord m = moves.remove(e.shard());
        if (m != null) {
          remember(recent, m.ended(MoveState.ABORTED, e.atMillis(), e.reason()));
        }
      } else if (event instanceof PlacementPaused) {
        paused = true;
      } else if (event instanceof PlacementResumed) {
        paused = false;
      } else if (event instanceof ProducerIdsAllocated e) {
        nextProducerId = Math.max(nextProducerId, e.firstId() + e.count());
      }
    }
  }

  /**
   * A map no one else holds, made by {@link Fold} for exactly one state: wrapped as it is, not copied again (with a
   * hundred thousand shards a copy is milliseconds, and every event would pay it twice).
   */
  private static final class Folded<K, V> extends TreeMap<K, V> {
    Folded(Map<K, V> from) {
      super(from);
    }
  }

  private static <K, V> Map<K, V> frozen(Map<K, V> map) {
    return Collections.unmodifiableSortedMap(map instanceof Folded<K, V> folded ? folded : new TreeMap<>(map));
  }

  private static void remember(List<MoveRecord> recent, MoveRecord finished) {
    recent.add(finished);
    while (recent.size() > RECENT_MOVES_KEPT) {
      recent.remove(0);
    }
  }

  /** The table every broker holds: the assignments, with each staged move's destination as a learner. */
  public AssignmentTable table() {
    Map<Integer, BrokerEndpoint> endpoints = new TreeMap<>();
    brokers.values().forEach(b -> endpoints.put(b.id(), b.endpoint()));
    Map<String, Integer> shardCounts = new TreeMap<>();
    streams.values().forEach(s -> shardCounts.put(s.name(), s.shards()));
    Map<String, StreamConfig> configs = new TreeMap<>();
    streams.values().stream().filter(s -> !s.config().equals(StreamConfig.DEFAULTS))
        .forEach(s -> configs.put(s.name(), s.config()));
    SortedMap<ShardId, ShardAssignment> table = new TreeMap<>(shards);
    for (MoveRecord move : moves.values()) {
      ShardAssignment a = table.get(move.shard());
      if (a != null && move.staged()) {
        table.put(move.shard(), new ShardAssignment(a.id(), a.replicas(), List.of(move.to()), a.leader(), a.leaderEpoch(),
            a.incarnation()));
      }
    }
    return new AssignmentTable(tableVersion, endpoints, shardCounts, table, configs);
  }

  public List<ShardAssignment> shardsOf(String stream) {
    return shards.values().stream().filter(a -> a.id().stream().equals(stream)).toList();
  }

  /** Shards whose replica set (or a staged copy in flight) includes the broker. */
  public long replicasOn(int brokerId) {
    long held = shards.values().stream().filter(a -> a.replicas().contains(brokerId)).count();
    return held + moves.values().stream().filter(m -> m.staged() && m.to() == brokerId).count();
  }

  public long leadersOn(int brokerId) {
    return shards.values().stream().filter(a -> a.leader() == brokerId).count();
  }
}
