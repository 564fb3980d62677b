package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.io.NotSerializableException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/** Every message that crosses Artery is bound to the protobuf serializer and survives a round trip unchanged. */
class ControlMessageSerializerTest {
  private static final ActorTestKit kit = ActorTestKit.create(ConfigFactory.load());

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void everyControlMessageRoundTripsThroughTheProtobufSerializer() throws Exception {
    TestProbe<ReplicaStatus> probe = kit.createTestProbe();
    ShardId a = new ShardId("orders", 0);
    ShardId b = new ShardId("clicks", 7);
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    shards.put(a, new ShardAssignment(a, List.of(1, 2, 3), List.of(4), 2, 9));
    shards.put(b, new ShardAssignment(b, List.of(3), List.of(), ShardAssignment.NO_LEADER, 0));
    AssignmentTable table = new AssignmentTable(42,
        Map.of(1, new BrokerEndpoint(1, "10.0.0.1", 7070, 7071, 8080), 4, new BrokerEndpoint(4, "h4", 1, 2, 3)),
        Map.of("orders", 1, "clicks", 8), shards);
    List<Object> messages = List.of(
        new ReplicaDirectory.ApplyAssignments(table),
        new ReplicaDirectory.FenceShard(a, 10, probe.ref()),
        new ReplicaDirectory.DescribeReplica(b, probe.ref()),
        new ReplicaStatus(a, 3, true, "follower", 9, 12345, 12000, false),
        ReplicaStatus.notHosted(b, 5));
    Serialization serialization = SerializationExtension.get(Adapter.toClassic(kit.system()));
    for (Object message : messages) {
      Serializer serializer = serialization.findSerializerFor(message);
      assertInstanceOf(ControlMessageSerializer.class, serializer, message.getClass().getName());
      byte[] bytes = serializer.toBinary(message);
      Object back = serialization.deserialize(bytes, serializer.identifier(), Serializers.manifestFor(serializer,
          message)).get();
      assertEquals(message, back);
    }
  }

  @Test
  void anUnknownManifestIsRefusedByName() throws Exception {
    ControlMessageSerializer serializer = (ControlMessageSerializer) SerializationExtension
        .get(Adapter.toClassic(kit.system())).serializerFor(ReplicaStatus.class);
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> serializer.fromBinary(new byte[0], "Z"));
    assertEquals("unknown control message manifest 'Z'", e.getMessage());
  }
}
