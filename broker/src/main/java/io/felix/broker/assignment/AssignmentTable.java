package io.felix.broker.assignment;

import io.felix.broker.wire.ControlMessage;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The versioned table of every shard's assignment that the placement singleton pushes to every broker.
 * Brokers use it for client metadata, for forwarding in plain mode and to start, stop and re-role their own
 * replicas. A broker ignores a table whose version is not newer than the one it holds.
 *
 * <p>Crosses Artery bare as the answer to a {@code GetTable}, besides inside the singleton's pushes.
 *
 * @param streams the shard count of every stream, so that an unknown stream and an unknown shard differ
 * @param streamConfigs each stream's own settings (retention, segment size); a stream without one uses the defaults
 */
public record AssignmentTable(
    long version,
    Map<Integer, BrokerEndpoint> brokers,
    Map<String, Integer> streams,
    SortedMap<ShardId, ShardAssignment> shards,
    Map<String, StreamConfig> streamConfigs) implements ControlMessage {

  public static final AssignmentTable EMPTY =
      new AssignmentTable(0, Map.of(), Map.of(), Collections.emptySortedMap());

  public AssignmentTable {
    brokers = Map.copyOf(brokers);
    streams = Map.copyOf(streams);
    shards = Collections.unmodifiableSortedMap(new TreeMap<>(shards));
    streamConfigs = Map.copyOf(streamConfigs);
  }

  /** A table whose streams all use the default settings. */
  public AssignmentTable(long version, Map<Integer, BrokerEndpoint> brokers, Map<String, Integer> streams,
      SortedMap<ShardId, ShardAssignment> shards) {
    this(version, brokers, streams, shards, Map.of());
  }

  /** The stream's own settings ({@link StreamConfig#DEFAULTS} when it has none, or is unknown). */
  public StreamConfig streamConfig(String stream) {
    return streamConfigs.getOrDefault(stream, StreamConfig.DEFAULTS);
  }

  public Optional<ShardAssignment> shard(ShardId id) {
    return Optional.ofNullable(shards.get(id));
  }

  public Optional<BrokerEndpoint> broker(int id) {
    return Optional.ofNullable(brokers.get(id));
  }
}
