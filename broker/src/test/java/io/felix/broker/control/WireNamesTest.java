package io.felix.broker.control;

import io.felix.broker.node.NodeConfig;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.ShardId;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.SerializationTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Enums keep the strings they replaced: in the journal (Jackson CBOR), in the admin API (JSON) and in a ControlView
 * that crosses Artery (protobuf), so stored snapshots and scripts reading the API stay valid.
 */
class WireNamesTest {

  static final ActorTestKit testKit = ActorTestKit.create(NodeConfig.withOverrides(Map.of("felix.cluster.port", 0)));

  @AfterAll
  static void stop() {
    testKit.shutdownTestKit();
  }

  @Test
  void moveStatesAndPassTriggersKeepTheirFormerStringsOnTheWire() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertEquals("\"in-flight\"", json.writeValueAsString(MoveState.IN_FLIGHT));
    assertEquals("\"completed\"", json.writeValueAsString(MoveState.COMPLETED));
    assertEquals("\"aborted\"", json.writeValueAsString(MoveState.ABORTED));
    assertEquals(MoveState.ABORTED, json.readValue("\"aborted\"", MoveState.class));
    assertEquals("\"drain requested\"", json.writeValueAsString(PassTrigger.DRAIN_REQUESTED));
    assertEquals("\"MemberUp\"", json.writeValueAsString(PassTrigger.MEMBER_UP));
    assertEquals(PassTrigger.NONE_YET, json.readValue("\"none yet\"", PassTrigger.class));

    SerializationTestKit serialization = new SerializationTestKit(testKit.system());
    ShardId shard = new ShardId("s", 0);
    ControlState aborted = ControlState.EMPTY
        .apply(new ShardPlaced(shard, List.of(0, 1), 0, 1))
        .apply(new MoveStarted(1, shard, 0, 1, false, "manual", 1000))
        .apply(new MoveAborted(shard, 1, "timed out", 2000));
    assertEquals(MoveState.ABORTED, aborted.recentMoves().get(0).state());
    serialization.verifySerialization(aborted, true);
    serialization.verifySerialization(new ControlView(aborted, List.of(0, 1), ControlView.LastPass.NONE,
        "stream-aware", 1, 0, 3000), true);
  }
}
