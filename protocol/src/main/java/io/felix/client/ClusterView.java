package io.felix.client;

import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * An immutable snapshot of what the client knows about brokers and streams, read from MetadataResponses and
 * NOT_LEADER hints.
 *
 * <p>Leaders are ordered per shard by leader epoch, as in Kafka's KIP-320: a shard's leader is replaced only by
 * one of a newer or equal epoch, whichever broker says so and whatever its assignment-table version. A broker
 * whose table lags can then neither undo a leader the client learnt elsewhere nor make it go back to an older
 * one, while a newer epoch is taken even from a lower table version (each broker learns leadership changes at
 * its own pace). The table version orders everything else (shard lists, broker addresses).
 */
final class ClusterView {
  static final ClusterView EMPTY = new ClusterView(Map.of(), Map.of(), Long.MIN_VALUE);

  /** A shard's leader (-1 unknown) at a leader epoch (-1 unknown). */
  record Leader(int broker, long epoch) {
    static final Leader UNKNOWN = new Leader(-1, -1);
  }

  /** One stream: its incarnation ("" unknown), its shard ids in ascending order and each shard's leader. */
  record StreamView(String name, ErrorCode error, String incarnation, int[] shardIds, Map<Integer, Leader> leaders) {
    boolean hasShard(int shard) {
      return Arrays.binarySearch(shardIds, shard) >= 0;
    }

    Leader leader(int shard) {
      return leaders.getOrDefault(shard, Leader.UNKNOWN);
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
   * Merges an answer into this view. Per shard, the answer's leader replaces ours when its epoch is newer, or
   * equal and the answer's table is not older than ours. Shard lists and broker addresses come from an answer
   * whose table is not older than ours; an older one only adds what this view does not know yet.
   */
  ClusterView merge(MetadataResponse response) {
    boolean notOlder = response.getAssignmentVersion() >= assignmentVersion;
    Map<Integer, HostPort> b = new HashMap<>(brokers);
    for (BrokerAddress a : response.getBrokersList()) {
      HostPort address = new HostPort(a.getHost(), a.getPort());
      if (notOlder) {
        b.put(a.getId(), address);
      } else {
        b.putIfAbsent(a.getId(), address);
      }
    }
    Map<String, StreamView> s = new HashMap<>(streams);
    for (StreamMetadata m : response.getStreamsList()) {
      StreamView known = streams.get(m.getName());
      int[] ids = m.getShardsList().stream().mapToInt(ShardMetadata::getShard).sorted().toArray();
      // A stream the answer says does not exist (any more), or that is another incarnation or has other shards now
      // (deleted and created again, with epochs starting over), keeps no leaders from before.
      boolean gone = notOlder && known != null && (m.getError() != ErrorCode.NONE
          || !m.getIncarnation().equals(known.incarnation()) || !Arrays.equals(ids, known.shardIds()));
      Map<Integer, Leader> leaders = new HashMap<>(known == null || gone ? Map.of() : known.leaders());
      for (ShardMetadata shard : m.getShardsList()) {
        Leader offered = new Leader(shard.getLeader(), shard.getLeaderEpoch());
        Leader held = leaders.getOrDefault(shard.getShard(), Leader.UNKNOWN);
        if (offered.epoch() > held.epoch() || (offered.epoch() == held.epoch() && notOlder)) {
          leaders.put(shard.getShard(), offered);
        }
      }
      if (known == null || notOlder) {
        s.put(m.getName(), new StreamView(m.getName(), m.getError(), m.getIncarnation(), ids, Map.copyOf(leaders)));
      } else {
        s.put(m.getName(), new StreamView(m.getName(), known.error(), known.incarnation(), known.shardIds(),
            Map.copyOf(leaders)));
      }
    }
    return new ClusterView(Map.copyOf(b), Map.copyOf(s), Math.max(assignmentVersion, response.getAssignmentVersion()));
  }

  /**
   * The view with a NOT_LEADER hint applied when it names a leader at an epoch at least the one held (then it
   * holds until an answer of a newer epoch); otherwise this view unchanged.
   */
  ClusterView withLeader(String stream, int shard, int leaderId, long leaderEpoch, HostPort leaderAddress) {
    StreamView view = streams.get(stream);
    if (view == null || leaderId < 0 || leaderEpoch < view.leader(shard).epoch()) {
      return this;
    }
    Map<Integer, Leader> leaders = new HashMap<>(view.leaders());
    leaders.put(shard, new Leader(leaderId, leaderEpoch));
    Map<String, StreamView> s = new HashMap<>(streams);
    s.put(stream, new StreamView(stream, view.error(), view.incarnation(), view.shardIds(), Map.copyOf(leaders)));
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

  /** The shard's leader as this view knows it ({@link Leader#UNKNOWN} when it does not). */
  Leader leader(String stream, int shard) {
    StreamView view = streams.get(stream);
    return view == null ? Leader.UNKNOWN : view.leader(shard);
  }

  /** The leader's address, or null when the shard has no known leader or the leader's address is unknown. */
  HostPort leaderAddress(String stream, int shard) {
    int leader = leader(stream, shard).broker();
    return leader < 0 ? null : brokers.get(leader);
  }

  /** The address of broker {@code id}, or null when unknown. */
  HostPort brokerAddress(int id) {
    return brokers.get(id);
  }

  /** The {@code turn}-th known broker (by id, wrapping around), or null when none is known: to spread reads. */
  HostPort brokerByTurn(int turn) {
    if (brokers.isEmpty()) {
      return null;
    }
    int[] ids = brokers.keySet().stream().mapToInt(Integer::intValue).sorted().toArray();
    return brokers.get(ids[Math.floorMod(turn, ids.length)]);
  }

  long assignmentVersion() {
    return assignmentVersion;
  }

  Iterable<HostPort> brokerAddresses() {
    return brokers.values();
  }
}
