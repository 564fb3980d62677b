package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** A shard is under-replicated when its leader does not lead, or a replica is missing, failed or out of sync. */
class UnderReplicationTest {
  static final ShardId ORDERS_0 = new ShardId("orders", 0);
  static final ShardAssignment LED_BY_0 = new ShardAssignment(ORDERS_0, List.of(0, 1, 2), List.of(), 0, 4);

  static ReplicaStatus leader(ShardId id, int broker, Integer... inSync) {
    return new ReplicaStatus(id, broker, true, ReplicaRole.LEADER, 4, 90, 90, false, false, 4, List.of(inSync));
  }

  static ReplicaStatus follower(ShardId id, int broker) {
    return new ReplicaStatus(id, broker, true, ReplicaRole.FOLLOWER, 4, 90, 90, false, false, 4);
  }

  @Test
  void everyReplicaAnsweringAndInSyncIsFullyReplicated() {
    assertFalse(UnderReplication.of(LED_BY_0, Map.of(0, leader(ORDERS_0, 0, 0, 1, 2), 1, follower(ORDERS_0, 1),
        2, follower(ORDERS_0, 2))));
  }

  @Test
  void aFollowerOutOfTheInSyncSetMakesTheShardUnderReplicated() {
    assertTrue(UnderReplication.of(LED_BY_0, Map.of(0, leader(ORDERS_0, 0, 0, 1), 1, follower(ORDERS_0, 1),
        2, follower(ORDERS_0, 2))));
  }

  @Test
  void aFailedFollowerCountsAtOnceEvenWhileTheLeaderStillHasItInSync() {
    assertTrue(UnderReplication.of(LED_BY_0, Map.of(0, leader(ORDERS_0, 0, 0, 1, 2), 1, follower(ORDERS_0, 1),
        2, ReplicaStatus.failed(ORDERS_0, 2))));
  }

  @Test
  void aMissingReplicaOrALeaderThatDoesNotLeadCounts() {
    assertTrue(UnderReplication.of(LED_BY_0, Map.of(0, leader(ORDERS_0, 0, 0, 1, 2), 1, follower(ORDERS_0, 1))));
    assertTrue(UnderReplication.of(LED_BY_0, Map.of(0, ReplicaStatus.failed(ORDERS_0, 0), 1, follower(ORDERS_0, 1),
        2, follower(ORDERS_0, 2))));
    assertTrue(UnderReplication.of(LED_BY_0, Map.of(1, follower(ORDERS_0, 1), 2, follower(ORDERS_0, 2))));
  }

  @Test
  void aListedStreamThisBrokersTableDoesNotHaveYetHasEveryShardUnderReplicated() {
    AssignmentTable table = new AssignmentTable(7, Map.of(), Map.of("orders", 1), new TreeMap<>(Map.of(ORDERS_0,
        LED_BY_0)));
    Map<ShardId, Map<Integer, ReplicaStatus>> statuses = Map.of(ORDERS_0, Map.of(0, leader(ORDERS_0, 0, 0, 1, 2),
        1, follower(ORDERS_0, 1), 2, follower(ORDERS_0, 2)));
    List<StreamRecord> listed = List.of(new StreamRecord("orders", 1, 3, null),
        new StreamRecord("clicks", 3, 3, null));
    assertEquals(Map.of("clicks", List.of(0, 1, 2)), UnderReplication.perListedStream(listed, table, statuses));
  }

  @Test
  void countsPerStreamAndPerLeader() {
    ShardId orders1 = new ShardId("orders", 1);
    ShardId orders2 = new ShardId("orders", 2);
    ShardId clicks0 = new ShardId("clicks", 0);
    List<ShardAssignment> shards = List.of(LED_BY_0,
        new ShardAssignment(orders1, List.of(0, 1, 2), List.of(), 1, 2),
        new ShardAssignment(orders2, List.of(0, 1, 2), List.of(), 1, 2),
        new ShardAssignment(clicks0, List.of(1, 2), List.of(), 2, 1));
    Map<ShardId, Map<Integer, ReplicaStatus>> statuses = Map.of(
        ORDERS_0, Map.of(0, leader(ORDERS_0, 0, 0, 1, 2), 1, follower(ORDERS_0, 1), 2, follower(ORDERS_0, 2)),
        orders1, Map.of(1, leader(orders1, 1, 1, 2), 2, follower(orders1, 2)), // broker 0 did not answer
        orders2, Map.of(1, leader(orders2, 1, 0, 1, 2), 0, ReplicaStatus.failed(orders2, 0), 2, follower(orders2, 2)),
        clicks0, Map.of(2, leader(clicks0, 2, 1, 2), 1, follower(clicks0, 1)));

    assertEquals(Map.of("orders", List.of(1, 2)), UnderReplication.perStream(shards, statuses));
    assertEquals(Map.of(1, 2), UnderReplication.perLeader(shards, statuses));
    // A shard nobody answered for is under-replicated, counted on its assigned leader.
    assertEquals(Map.of(0, 1, 1, 2), UnderReplication.perLeader(shards, Map.of(
        orders1, statuses.get(orders1), orders2, statuses.get(orders2), clicks0, statuses.get(clicks0))));
  }
}
