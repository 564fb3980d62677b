package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The role board answers from the registry alone, and never with a status about an assignment its replica has not
 * taken up: a shard the table does not place here is not hosted; one placed here whose replica is not started yet,
 * has published nothing, or published at an epoch below the table's, is starting; a status counts only while the
 * actor that published it is the shard's registered replica (a retired replica's late publication is not taken for
 * its successor's); a FAILED replica is FAILED whatever the epoch.
 */
class ReplicaRoleBoardTest {
  static final ActorTestKit kit = ActorTestKit.create("ReplicaRoleBoardTest");
  static final int BROKER = 2;
  static final ShardId LED = new ShardId("orders", 0);
  static final ShardId OPENING = new ShardId("orders", 1);
  static final ShardId ELSEWHERE = new ShardId("orders", 2);
  static final ShardId RESPAWNED = new ShardId("orders", 3);
  static final ShardId NOT_STARTED = new ShardId("orders", 4);
  static final ShardId BEHIND = new ShardId("orders", 5);
  static final ShardId BROKEN = new ShardId("orders", 6);

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  @Test
  void answersEachShardFromWhatItsRegisteredReplicaPublishedForTheTablesAssignment() {
    ReplicaRegistry registry = new ReplicaRegistry(BROKER);
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    for (ShardId id : List.of(LED, OPENING, RESPAWNED, NOT_STARTED, BROKEN)) {
      shards.put(id, new ShardAssignment(id, List.of(1, BROKER, 3), List.of(), BROKER, 4));
    }
    shards.put(BEHIND, new ShardAssignment(BEHIND, List.of(1, BROKER, 3), List.of(), BROKER, 6));
    shards.put(ELSEWHERE, new ShardAssignment(ELSEWHERE, List.of(1, 3, 4), List.of(), 1, 4));
    registry.table(new AssignmentTable(9, Map.of(), Map.of("orders", 7), shards));

    ReplicaStatus leading = leader(LED, 4);
    publish(registry, LED, leading);
    registry.put(OPENING, replica());
    registry.put(RESPAWNED, replica());
    registry.publish(replica(), leader(RESPAWNED, 4)); // published by an actor that is no longer the replica
    publish(registry, BEHIND, leader(BEHIND, 5)); // has not taken up epoch 6 yet
    publish(registry, BROKEN, ReplicaStatus.failed(BROKEN, BROKER));

    ActorRef<ReplicaRoleBoard.Command> board = kit.spawn(ReplicaRoleBoard.create(registry));
    TestProbe<ReplicaStatuses> answers = kit.createTestProbe();
    List<ShardId> asked = List.of(LED, OPENING, ELSEWHERE, RESPAWNED, NOT_STARTED, BEHIND, BROKEN);
    board.tell(new ReplicaRoleBoard.DescribeRoles(-7, asked, false, answers.getRef()));

    ReplicaStatuses answer = answers.receiveMessage();
    assertEquals(-7, answer.requestId());
    assertEquals(BROKER, answer.brokerId());
    assertEquals(9, answer.tableVersion());
    assertEquals(List.of(leading, starting(OPENING), ReplicaStatus.notHosted(ELSEWHERE, BROKER), starting(RESPAWNED),
        starting(NOT_STARTED), starting(BEHIND), ReplicaStatus.failed(BROKEN, BROKER)), answer.statuses());

    // The leader check's question: the replica that leads is left out, every other one answers as above.
    board.tell(new ReplicaRoleBoard.DescribeRoles(-9, asked, true, answers.getRef()));
    ReplicaStatuses exceptions = answers.receiveMessage();
    assertEquals(-9, exceptions.requestId());
    assertEquals(List.of(starting(OPENING), ReplicaStatus.notHosted(ELSEWHERE, BROKER), starting(RESPAWNED),
        starting(NOT_STARTED), starting(BEHIND), ReplicaStatus.failed(BROKEN, BROKER)), exceptions.statuses());

    registry.remove(LED); // retired: its publication goes with it, and until it starts again it is starting
    board.tell(new ReplicaRoleBoard.DescribeRoles(-8, List.of(LED), true, answers.getRef()));
    assertEquals(List.of(starting(LED)), answers.receiveMessage().statuses());
  }

  private static ActorRef<ShardReplica.Command> replica() {
    return kit.<ShardReplica.Command>createTestProbe().ref();
  }

  private static void publish(ReplicaRegistry registry, ShardId id, ReplicaStatus status) {
    ActorRef<ShardReplica.Command> replica = replica();
    registry.put(id, replica);
    registry.publish(replica, status);
  }

  private static ReplicaStatus leader(ShardId id, long epoch) {
    return new ReplicaStatus(id, BROKER, true, ReplicaRole.LEADER, epoch, 120, 100, false, false, epoch,
        List.of(1, BROKER, 3));
  }

  private static ReplicaStatus starting(ShardId id) {
    return ReplicaStatus.starting(id, BROKER);
  }
}
