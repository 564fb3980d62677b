package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The real kafka-clients 4.4 Admin against three Felix brokers: topics, configs, offsets, and refusals. */
@Tag("cluster")
class KafkaAdminClusterTest {

  @Test
  void adminCreatesDescribesGrowsListsOffsetsAndDeletesTopics() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of());
         Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic("clicks", 4, (short) 3)
              .configs(Map.of("retention.ms", "3600000")),
          new NewTopic("sessions", 3, (short) 3).configs(Map.of("cleanup.policy", "compact")))).all().get();
      ExecutionException twice = assertThrows(ExecutionException.class,
          () -> admin.createTopics(List.of(new NewTopic("clicks", 4, (short) 3))).all().get());
      assertInstanceOf(TopicExistsException.class, twice.getCause());
      assertTrue(admin.listTopics().names().get().containsAll(Set.of("clicks", "sessions")));

      TopicDescription clicks = admin.describeTopics(List.of("clicks")).allTopicNames().get().get("clicks");
      assertEquals(4, clicks.partitions().size());
      clicks.partitions().forEach(p -> {
        assertEquals(3, p.replicas().size(), "replication factor 3: " + p);
        assertTrue(p.replicas().contains(p.leader()), "the leader is a replica: " + p);
      });
      assertFalse(clicks.topicId().equals(org.apache.kafka.common.Uuid.ZERO_UUID), "the incarnation is the topic id");

      Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(
          new ConfigResource(ConfigResource.Type.TOPIC, "clicks"),
          new ConfigResource(ConfigResource.Type.TOPIC, "sessions"))).all().get();
      Config clickConfig = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, "clicks"));
      assertEquals("delete", clickConfig.get("cleanup.policy").value());
      assertEquals("3600000", clickConfig.get("retention.ms").value());
      assertEquals("compact", configs.get(new ConfigResource(ConfigResource.Type.TOPIC, "sessions"))
          .get("cleanup.policy").value(), "a cache is a compacted topic");
      assertEquals(200, kafka.cluster.get(kafka.cluster.live().get(0), "/v1/caches/sessions").status(),
          "cleanup.policy=compact created a Felix cache");

      try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka.producer())) {
        for (int i = 0; i < 20; i++) {
          producer.send(new ProducerRecord<>("sessions", "user-" + i, "state-" + i)).get();
        }
        producer.send(new ProducerRecord<>("sessions", "user-3", null)).get(); // a Kafka tombstone: a delete
      }
      try (io.felix.client.FelixClient felix = kafka.cluster.client()) {
        for (int i = 0; i < 20; i++) {
          var entry = felix.cache("sessions").get(("user-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8))
              .get();
          if (i == 3) {
            assertTrue(entry.isEmpty(), "the null value deleted user-3: " + entry);
          } else {
            assertEquals("state-" + i, new String(entry.orElseThrow().value(),
                java.nio.charset.StandardCharsets.UTF_8), "a Kafka producer's keyed write is a put, found by key");
          }
        }
      }

      long before = System.currentTimeMillis();
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka.producer())) {
        for (int i = 0; i < 40; i++) {
          long ts = before + i * 1000L;
          producer.send(new ProducerRecord<>("clicks", 1, ts, "k" + i, "v" + i)).get();
        }
      }
      TopicPartition p1 = new TopicPartition("clicks", 1);
      assertEquals(0, offset(admin, p1, OffsetSpec.earliest()).offset());
      assertEquals(40, offset(admin, p1, OffsetSpec.latest()).offset());
      ListOffsetsResult.ListOffsetsResultInfo at = offset(admin, p1, OffsetSpec.forTimestamp(before + 12_500));
      assertEquals(13, at.offset(), "the first record stamped at or after the time");
      assertEquals(before + 13_000, at.timestamp());
      assertEquals(39, offset(admin, p1, OffsetSpec.maxTimestamp()).offset());
      assertEquals(-1, offset(admin, p1, OffsetSpec.forTimestamp(before + 100_000)).offset(), "none that late");

      admin.createPartitions(Map.of("clicks", NewPartitions.increaseTo(6))).all().get();
      // Metadata follows a change once every broker applied its table, as in Kafka: awaited, not assumed.
      awaitMetadata("clicks with 6 partitions", () ->
          admin.describeTopics(List.of("clicks")).allTopicNames().get().get("clicks").partitions().size() == 6);

      ExecutionException acls = assertThrows(ExecutionException.class,
          () -> admin.describeAcls(AclBindingFilter.ANY).values().get());
      assertInstanceOf(UnsupportedVersionException.class, acls.getCause(), "an API Felix does not serve");

      admin.deleteTopics(List.of("clicks")).all().get();
      awaitMetadata("clicks gone from the topic list", () -> !admin.listTopics().names().get().contains("clicks"));
    }
  }

  @Test
  void badFramesCloseOnlyTheirConnectionAndOldVersionsGetUnsupportedVersion() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(1, Map.of())) {
      int port = kafka.kafkaPort(0);
      try (Socket s = new Socket("127.0.0.1", port)) {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(10);
        out.write(new byte[] {0x7f, 0x7f, 0, 0, 0, 0, 0, 1, -1, -1}); // an API key no Kafka knows
        out.flush();
        s.setSoTimeout(10_000);
        assertThrows(EOFException.class, () -> new DataInputStream(s.getInputStream()).readInt(),
            "the connection is closed");
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeInt(Integer.MAX_VALUE); // a length over max-frame-size
        out.flush();
        s.setSoTimeout(10_000);
        assertThrows(EOFException.class, () -> new DataInputStream(s.getInputStream()).readInt());
      }
      try (Socket s = new Socket("127.0.0.1", port)) {
        // ApiVersions v9 (newer than served): answered in version 0 with UNSUPPORTED_VERSION and the ranges
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        ByteBuffer request = ByteBuffer.allocate(10);
        request.putShort(ApiKeys.API_VERSIONS.id).putShort((short) 9).putInt(42).putShort((short) -1);
        out.writeInt(request.capacity());
        out.write(request.array());
        out.flush();
        s.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] body = new byte[in.readInt()];
        in.readFully(body);
        ByteBuffer buffer = ByteBuffer.wrap(body);
        assertEquals(42, buffer.getInt(), "correlation id");
        ApiVersionsResponseData answer = new ApiVersionsResponseData(new ByteBufferAccessor(buffer), (short) 0);
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), answer.errorCode());
        assertTrue(answer.apiKeys().find(ApiKeys.PRODUCE.id) != null);
      }
      try (Admin admin = kafka.admin()) {
        BrokerCluster.await(Duration.ofSeconds(10), "the broker still answers", () -> {
          try {
            return admin.describeCluster().nodes().get().size() == 1;
          } catch (Exception e) {
            return false;
          }
        });
      }
    }
  }

  private interface MetadataCheck {
    boolean holds() throws Exception;
  }

  /** Waits up to 10 s for what a broker's metadata shows after an admin change (a failed ask counts as not yet). */
  private static void awaitMetadata(String what, MetadataCheck check) {
    BrokerCluster.await(Duration.ofSeconds(10), what, () -> {
      try {
        return check.holds();
      } catch (Exception e) {
        return false;
      }
    });
  }

  private static ListOffsetsResult.ListOffsetsResultInfo offset(Admin admin, TopicPartition tp, OffsetSpec spec)
      throws Exception {
    return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get();
  }
}
