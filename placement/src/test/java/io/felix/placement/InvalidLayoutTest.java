package io.felix.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Bad input is rejected whole, with a message naming the problem. */
class InvalidLayoutTest {

  private static final List<Broker> THREE = List.of(Broker.live(0), Broker.live(1), Broker.live(2));
  private static final List<Group> ONE = List.of(Group.stream("s", 2, 2));

  @Test
  void unknownBrokerInAnAssignmentIsRejected() {
    rejected("assignment s/0: unknown broker 9", () -> new ClusterSnapshot(THREE, ONE,
        List.of(new Assignment("s", 0, 0, List.of(0, 9))), List.of(), null));
  }

  @Test
  void duplicateBrokerIdsAreRejected() {
    rejected("duplicate broker id 1",
        () -> ClusterSnapshot.of(List.of(Broker.live(0), Broker.live(1), Broker.live(1)), ONE));
  }

  @Test
  void replicationFactorLargerThanTheBrokersIsRejected() {
    rejected("group s: replication factor 4 is larger than the 3 brokers in the cluster",
        () -> ClusterSnapshot.of(THREE, List.of(Group.stream("s", 1, 4))));
    List<Broker> oneDraining = List.of(Broker.live(0), Broker.live(1), Broker.live(2).withState(BrokerState.DRAINING));
    rejected("group s: replication factor 3 but only 2 live brokers can host its new shards",
        () -> ClusterSnapshot.of(oneDraining, List.of(Group.stream("s", 1, 3))));
  }

  @Test
  void negativeShardCountIsRejected() {
    rejected("group s: shard count must be >= 0, got -1", () -> Group.stream("s", -1, 1));
  }

  @Test
  void assignmentsThatContradictTheGroupsAreRejected() {
    rejected("assignment t/0: unknown group 't'", () -> new ClusterSnapshot(THREE, ONE,
        List.of(new Assignment("t", 0, 0, List.of(0, 1))), List.of(), null));
    rejected("assignment s/2: shard out of range, group s has 2 shards", () -> new ClusterSnapshot(THREE, ONE,
        List.of(new Assignment("s", 2, 0, List.of(0, 1))), List.of(), null));
    rejected("assignment s/0: shard assigned twice", () -> new ClusterSnapshot(THREE, ONE,
        List.of(new Assignment("s", 0, 0, List.of(0, 1)), new Assignment("s", 0, 1, List.of(1, 2))), List.of(),
        null));
    rejected("assignment s/0: leader 2 is not in replicas [0, 1]", () -> new Assignment("s", 0, 2, List.of(0, 1)));
    rejected("duplicate group name 's'", () -> ClusterSnapshot.of(THREE, List.of(ONE.get(0), ONE.get(0))));
  }

  @Test
  void impossibleMovesInFlightAreRejected() {
    List<Assignment> one = List.of(new Assignment("s", 0, 0, List.of(0, 1)));
    rejected("move in flight s/0: broker 2 holds no replica of it (replicas [0, 1])",
        () -> new ClusterSnapshot(THREE, ONE, one, List.of(new MoveInFlight("s", 0, 2, 0)), null));
    rejected("move in flight s/1: no such assigned shard",
        () -> new ClusterSnapshot(THREE, ONE, one, List.of(new MoveInFlight("s", 1, 0, 2)), null));
  }

  private static void rejected(String message, Executable build) {
    assertEquals(message, assertThrows(InvalidLayoutException.class, build).getMessage());
  }
}
