package io.felix.broker.control;

import io.felix.broker.node.NodeConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementEvent.BrokerJoined;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.SerializationTestKit;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Events, the state snapshot, tables and replies survive Jackson CBOR, the serializer bound in NodeConfig. */
class ControlSerializationTest {

  static final ActorTestKit testKit = ActorTestKit.create(NodeConfig.withOverrides(Map.of("felix.cluster.port", 0)));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void eventsStateAndTablesRoundTripThroughJacksonCbor() {
    SerializationTestKit serialization = new SerializationTestKit(testKit.system());
    ShardId shard = new ShardId("perf-quorum", 3);
    BrokerEndpoint endpoint = new BrokerEndpoint(2, "127.0.0.1", 7070, 7071, 8080);
    List<PlacementEvent> events = List.of(
        new BrokerJoined(2, "a", 0, endpoint),
        new StreamCreated("perf-quorum", 12, 3),
        new ShardPlaced(shard, List.of(2, 0, 1), 2, 1),
        new LeaderPromoted(shard, 0, 2, 2),
        new MoveStarted(1, shard, 0, 1, false, "manual", 1000),
        new MoveFenced(shard, 3),
        new MoveCompleted(shard, List.of(2, 0, 1), 1, 3, 2000));
    ControlState state = ControlState.EMPTY;
    for (PlacementEvent event : events) {
      serialization.verifySerialization(event, true);
      state = state.apply(event);
    }
    serialization.verifySerialization(state, true);
    serialization.verifySerialization(new AssignmentHolder.Publish(state.table()), true);
    serialization.verifySerialization(new ControlReply.Rejected(ControlReply.Refusal.CONFLICT, "x"), true);

    assertEquals("JacksonCborSerializer",
        SerializationExtension.get(testKit.system()).findSerializerFor(state).getClass().getSimpleName());
    assertEquals(1, state.shards().get(shard).leader());
    assertEquals(7, state.tableVersion());
  }
}
