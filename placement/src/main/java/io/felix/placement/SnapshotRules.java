package io.felix.placement;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The cross-checks that make a snapshot plannable; each failure names the offending broker, group or shard. */
final class SnapshotRules {

  private SnapshotRules() {}

  static void check(
      List<Broker> brokers, List<Group> groups, List<Assignment> assignments, List<MoveInFlight> moves) {
    Map<Integer, Broker> brokerById = new HashMap<>();
    int live = 0;
    for (Broker broker : brokers) {
      if (brokerById.put(broker.id(), broker) != null) {
        throw new InvalidLayoutException("duplicate broker id " + broker.id());
      }
      if (broker.state() == BrokerState.LIVE) {
        live++;
      }
    }
    Map<String, Group> groupByName = new HashMap<>();
    for (Group group : groups) {
      if (groupByName.put(group.name(), group) != null) {
        throw new InvalidLayoutException("duplicate group name '" + group.name() + "'");
      }
      if (group.replicationFactor() > brokers.size()) {
        throw new InvalidLayoutException("group " + group.name() + ": replication factor "
            + group.replicationFactor() + " is larger than the " + brokers.size() + " brokers in the cluster");
      }
    }
    Map<String, Set<Integer>> assigned = new HashMap<>();
    Map<String, Assignment> byShard = new HashMap<>();
    for (Assignment assignment : assignments) {
      String where = assignment.group() + "/" + assignment.shard();
      Group group = groupByName.get(assignment.group());
      if (group == null) {
        throw new InvalidLayoutException("assignment " + where + ": unknown group '" + assignment.group() + "'");
      }
      if (assignment.shard() >= group.shards()) {
        throw new InvalidLayoutException("assignment " + where + ": shard out of range, group "
            + group.name() + " has " + group.shards() + " shards");
      }
      if (!assigned.computeIfAbsent(group.name(), g -> new HashSet<>()).add(assignment.shard())) {
        throw new InvalidLayoutException("assignment " + where + ": shard assigned twice");
      }
      if (assignment.replicas().size() > group.replicationFactor()) {
        throw new InvalidLayoutException("assignment " + where + ": " + assignment.replicas().size()
            + " replicas but replication factor is " + group.replicationFactor());
      }
      for (Integer broker : assignment.replicas()) {
        if (!brokerById.containsKey(broker)) {
          throw new InvalidLayoutException("assignment " + where + ": unknown broker " + broker);
        }
      }
      byShard.put(where, assignment);
    }
    for (Group group : groups) {
      int placed = assigned.getOrDefault(group.name(), Set.of()).size();
      if (placed < group.shards() && group.replicationFactor() > live) {
        throw new InvalidLayoutException("group " + group.name() + ": replication factor "
            + group.replicationFactor() + " but only " + live + " live brokers can host its new shards");
      }
    }
    Set<String> moving = new HashSet<>();
    for (MoveInFlight move : moves) {
      String where = move.group() + "/" + move.shard();
      Assignment assignment = byShard.get(where);
      if (assignment == null) {
        throw new InvalidLayoutException("move in flight " + where + ": no such assigned shard");
      }
      if (!moving.add(where)) {
        throw new InvalidLayoutException("move in flight " + where + ": shard has two moves in flight");
      }
      if (!brokerById.containsKey(move.to())) {
        throw new InvalidLayoutException("move in flight " + where + ": unknown broker " + move.to());
      }
      if (!assignment.replicas().contains(move.from())) {
        throw new InvalidLayoutException("move in flight " + where + ": broker " + move.from()
            + " holds no replica of it (replicas " + assignment.replicas() + ")");
      }
      if (assignment.replicas().contains(move.to()) && assignment.leader() != move.from()) {
        throw new InvalidLayoutException("move in flight " + where + ": broker " + move.to()
            + " already holds a replica, so this must be a leadership transfer, but " + move.from()
            + " is not the leader");
      }
    }
  }
}
