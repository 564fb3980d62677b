package io.felix.client;

import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** An immutable snapshot of what the client knows about brokers and streams, read from a MetadataResponse. */
final class ClusterView {
  static final ClusterView EMPTY = new ClusterView(Map.of(), Map.of(), Long.MIN_VALUE);

  /** One stream: its shard ids in ascending order, each shard's leader (-1 unknown) and epoch. */
  record StreamView(String name, ErrorCode error, int[] shardIds, Map<Integer, Integer> leaders) {
    boolean hasShard(int shard) {
      return Arrays.binarySearch(shardIds, shard) >= 0;
    }
  }

  private final Map<Integer, HostPort> brokers;
  private final Map<String, StreamView> streams;
  private final long assignmentVersion;

  private ClusterView(Map<Integer, HostPort> brokers, Map<String, StreamView> streams, long assignmentVersion) {
    this.brokers = brokers;
    this.streams = streams;
    this.assignmentVersion = assignmentVersion;
  }

  /**
   * Merges an answer into this view: the answer's streams replace ours, other streams are kept. An answer read
   * from an older assignment table than the one this view came from (a broker that has not caught up) is
   * ignored, so it cannot undo a newer answer.
   */
  ClusterView merge(MetadataResponse response) {
    if (response.getAssignmentVersion() < assignmentVersion) {
      return this;
    }
    Map<Integer, HostPort> b = new HashMap<>(brokers);
    for (BrokerAddress a : response.getBrokersList()) {
      b.put(a.getId(), new HostPort(a.getHost(), a.getPort()));
    }
    Map<String, StreamView> s = new HashMap<>(streams);
    for (StreamMetadata m : response.getStreamsList()) {
      int[] ids = m.getShardsList().stream().mapToInt(ShardMetadata::getShard).sorted().toArray();
      Map<Integer, Integer> leaders = new HashMap<>();
      for (ShardMetadata shard : m.getShardsList()) {
        leaders.put(shard.getShard(), shard.getLeader());
      }
      s.put(m.getName(), new StreamView(m.getName(), m.getError(), ids, Map.copyOf(leaders)));
    }
    return new ClusterView(Map.copyOf(b), Map.copyOf(s), response.getAssignmentVersion());
  }

  /** The view with a NOT_LEADER hint applied, until the next metadata answer says better. */
  ClusterView withLeader(String stream, int shard, int leaderId, HostPort leaderAddress) {
    StreamView view = streams.get(stream);
    if (view == null || leaderId < 0) {
      return this;
    }
    Map<Integer, Integer> leaders = new HashMap<>(view.leaders());
    leaders.put(shard, leaderId);
    Map<String, StreamView> s = new HashMap<>(streams);
    s.put(stream, new StreamView(stream, view.error(), view.shardIds(), Map.copyOf(leaders)));
    Map<Integer, HostPort> b = brokers;
    if (leaderAddress != null) {
      Map<Integer, HostPort> copy = new HashMap<>(brokers);
      copy.put(leaderId, leaderAddress);
      b = Map.copyOf(copy);
    }
    return new ClusterView(b, Map.copyOf(s), assignmentVersion);
  }

  StreamView stream(String name) {
    return streams.get(name);
  }

  /** The leader's address, or null when the shard has no known leader or the leader's address is unknown. */
  HostPort leaderAddress(String stream, int shard) {
    StreamView view = streams.get(stream);
    Integer leader = view == null ? null : view.leaders().get(shard);
    return leader == null || leader < 0 ? null : brokers.get(leader);
  }

  Iterable<HostPort> brokerAddresses() {
    return brokers.values();
  }
}
