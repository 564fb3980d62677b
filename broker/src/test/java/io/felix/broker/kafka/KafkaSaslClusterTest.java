package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.felix.client.admin.AdminClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Kafka clients authenticate with SASL SCRAM-SHA-256 as the native listener's users, and the native ACLs decide
 * what they may do: a wrong password is refused, a user without the produce ACL is refused, one with it writes.
 */
@Tag("cluster")
class KafkaSaslClusterTest {
  private static final String ADMIN_TOKEN = "kafka-sasl-test-admin-token";

  @Test
  void scramUsersAndAclsOfTheNativeListenerGovernKafkaClients() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of(
        "felix.security.client-authentication", "on",
        "felix.security.admin-authentication", "on",
        "felix.security.authorization", "on",
        "felix.security.super-users", List.of("admin"),
        "felix.security.admin-tokens", List.of(ADMIN_TOKEN),
        "felix.security.scram-iterations", 4096))) {
      kafka.cluster.adminToken(ADMIN_TOKEN);
      AdminClient admin = AdminClient.local(kafka.cluster.broker(0).adminPort()).withToken(ADMIN_TOKEN);
      admin.createStream("secret", 3, 3);
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"alice\",\"password\":\"alice-secret\"}").status());
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"bob\",\"password\":\"bob-secret!\"}").status());
      for (String operation : List.of("produce", "consume", "describe")) {
        assertEquals(201, admin.post("/v1/acls", "{\"principal\":\"alice\",\"resource_type\":\"stream\","
            + "\"resource_name\":\"secret\",\"operation\":\"" + operation + "\"}").status());
      }
      assertEquals(201, admin.post("/v1/acls", "{\"principal\":\"bob\",\"resource_type\":\"stream\","
          + "\"resource_name\":\"secret\",\"operation\":\"describe\"}").status());
      io.felix.broker.BrokerCluster.await(Duration.ofSeconds(10), "users on every broker", () ->
          kafka.cluster.live().stream().allMatch(b -> kafka.cluster.get(b, "/v1/acls").body().contains("bob")));

      ExecutionException wrong = assertThrows(ExecutionException.class, () -> send(kafka, "alice", "not-it", 1));
      assertInstanceOf(SaslAuthenticationException.class, wrong.getCause());
      ExecutionException notAllowed = assertThrows(ExecutionException.class, () -> send(kafka, "bob", "bob-secret!", 1));
      assertInstanceOf(TopicAuthorizationException.class, notAllowed.getCause());
      send(kafka, "alice", "alice-secret", 50);

      Properties p = sasl(kafka.consumer("unused"), "alice", "alice-secret");
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
        List<TopicPartition> all = List.of(new TopicPartition("secret", 0), new TopicPartition("secret", 1),
            new TopicPartition("secret", 2));
        consumer.assign(all);
        consumer.seekToBeginning(all);
        List<String> read = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (read.size() < 50 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            read.add(r.value());
          }
        }
        assertEquals(50, read.size(), "alice reads what she wrote: " + read);
      }
    }
  }

  private static void send(KafkaTestCluster kafka, String user, String password, int records) throws Exception {
    Properties p = sasl(kafka.producer(), user, password);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      for (int i = 0; i < records; i++) {
        producer.send(new ProducerRecord<>("secret", "k" + i, "v" + i)).get();
      }
    }
  }

  private static Properties sasl(Properties p, String user, String password) {
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    p.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-256");
    p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
        + "username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }
}
