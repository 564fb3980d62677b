package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Which shards are under-replicated, from what their replicas answered (DescribeReplica): a shard is when its
 * assigned leader does not answer as LEADER (down, failed, refusing its epoch), or when any replica of its replica
 * set did not answer (missing), answered FAILED, or is not in the leader's in-sync set (behind or not fetching).
 */
final class UnderReplication {

  private UnderReplication() {}

  /** @param statuses the answers of the shard's replicas by broker id; a broker missing here did not answer */
  static boolean of(ShardAssignment a, Map<Integer, ReplicaStatus> statuses) {
    ReplicaStatus leader = statuses.get(a.leader());
    if (leader == null || leader.role() != ReplicaRole.LEADER) {
      return true;
    }
    for (int replica : a.replicas()) {
      ReplicaStatus status = statuses.get(replica);
      if (status == null || status.failed() || !leader.inSync().contains(replica)) {
        return true;
      }
    }
    return false;
  }

  /** Per stream with at least one, its under-replicated shard numbers in ascending order. */
  static Map<String, List<Integer>> perStream(Collection<ShardAssignment> shards,
      Map<ShardId, Map<Integer, ReplicaStatus>> statuses) {
    Map<String, List<Integer>> out = new TreeMap<>();
    for (ShardAssignment a : shards) {
      if (of(a, statuses.getOrDefault(a.id(), Map.of()))) {
        out.computeIfAbsent(a.id().stream(), s -> new ArrayList<>()).add(a.id().shard());
      }
    }
    out.values().forEach(list -> list.sort(null));
    return out;
  }

  /**
   * Per listed stream with at least one, its under-replicated shard numbers: from {@link #perStream} over this broker's
   * {@code table}, and every shard of a stream the table does not have yet (its replicas are not known to be in
   * sync, nor even started).
   */
  static Map<String, List<Integer>> perListedStream(List<StreamRecord> listed, AssignmentTable table,
      Map<ShardId, Map<Integer, ReplicaStatus>> statuses) {
    Map<String, List<Integer>> out = perStream(table.shards().values(), statuses);
    for (StreamRecord stream : listed) {
      if (!table.streams().containsKey(stream.name())) {
        out.put(stream.name(), IntStream.range(0, stream.shards()).boxed().toList());
      }
    }
    return out;
  }

  /**
   * Per broker assigned to lead at least one, the number of its shards that are under-replicated (the same count
   * as the {@code felix_under_replicated_shards} gauges that broker exports, plus the shards it is assigned to lead
   * but does not: down, failed or refusing its epoch).
   */
  static Map<Integer, Integer> perLeader(Collection<ShardAssignment> shards,
      Map<ShardId, Map<Integer, ReplicaStatus>> statuses) {
    Map<Integer, Integer> out = new TreeMap<>();
    for (ShardAssignment a : shards) {
      if (a.leader() != ShardAssignment.NO_LEADER && of(a, statuses.getOrDefault(a.id(), Map.of()))) {
        out.merge(a.leader(), 1, Integer::sum);
      }
    }
    return out;
  }
}
