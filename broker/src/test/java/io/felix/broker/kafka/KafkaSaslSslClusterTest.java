package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.felix.broker.BrokerCluster;
import io.felix.launcher.CertificateAuthority;
import io.felix.client.admin.AdminClient;
import io.felix.protocol.tls.TlsFiles;
import java.nio.file.Path;
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
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under felix.tls the Kafka listener speaks TLS: Kafka clients connect with SASL_SSL (SCRAM-SHA-256 as a native
 * user, the brokers' CA trusted), produce and consume; a client that does not trust the CA is refused.
 */
@Tag("cluster")
class KafkaSaslSslClusterTest {
  private static final String ADMIN_TOKEN = "kafka-sasl-ssl-test-admin-token";
  private static final char[] P12_PASSWORD = "felix".toCharArray();

  @TempDir Path dir;

  @Test
  void kafkaClientsAuthenticateWithScramOverTls() throws Exception {
    Path certs = dir.resolve("certs");
    CertificateAuthority ca = CertificateAuthority.create("Felix Kafka test CA");
    ca.writeCa(certs);
    for (int id = 0; id < 3; id++) {
      ca.issue(certs, "broker-" + id, List.of("localhost", "127.0.0.1"), P12_PASSWORD);
    }
    KafkaTestCluster kafka = KafkaTestCluster.create(Map.of(
        "felix.tls.enabled", "on",
        "felix.tls.ca-file", certs.resolve("ca.crt").toString(),
        "felix.cluster.acceptable-heartbeat-pause", "20s",
        "felix.security.client-authentication", "on",
        "felix.security.admin-authentication", "on",
        "felix.security.super-users", List.of("admin"),
        "felix.security.admin-tokens", List.of(ADMIN_TOKEN),
        "felix.security.scram-iterations", 4096));
    try (kafka) {
      for (int id = 0; id < 3; id++) {
        kafka.cluster.override("felix.tls.certificate-file", certs.resolve("broker-" + id + ".crt").toString());
        kafka.cluster.override("felix.tls.private-key-file", certs.resolve("broker-" + id + ".key").toString());
        kafka.add(id);
      }
      kafka.cluster.clientTls(TlsFiles.clientContext(certs.resolve("ca.crt"), null, null));
      kafka.cluster.adminToken(ADMIN_TOKEN);
      kafka.clientProperties(sasl(certs.resolve("ca.crt"), "admin-user", "admin-secret"));
      kafka.cluster.awaitUp(3);
      kafka.cluster.awaitBrokersLive(kafka.cluster.broker(0), 3);
      AdminClient admin = new AdminClient("127.0.0.1", kafka.cluster.broker(0).adminPort(),
          TlsFiles.clientContext(certs.resolve("ca.crt"), null, null)).withToken(ADMIN_TOKEN);
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"admin-user\",\"password\":\"admin-secret\"}").status());
      kafka.awaitStarted(3);
      admin.createStream("sealed", 3, 3);
      BrokerCluster.await(Duration.ofSeconds(20), "stream on every broker", () -> kafka.cluster.live().stream()
          .allMatch(b -> b.dataPlane().registry().table().streams().containsKey("sealed")));

      Properties producer = kafka.producer();
      try (KafkaProducer<String, String> p = new KafkaProducer<>(producer)) {
        for (int i = 0; i < 30; i++) {
          p.send(new ProducerRecord<>("sealed", "k" + i, "v" + i)).get();
        }
      }
      try (KafkaConsumer<String, String> c = new KafkaConsumer<>(kafka.consumer("unused"))) {
        List<TopicPartition> all = List.of(new TopicPartition("sealed", 0), new TopicPartition("sealed", 1),
            new TopicPartition("sealed", 2));
        c.assign(all);
        c.seekToBeginning(all);
        List<String> read = new ArrayList<>();
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (read.size() < 30 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
            read.add(r.value());
          }
        }
        assertEquals(30, read.size(), "read back over TLS: " + read);
      }

      Properties stranger = kafka.producer();
      Path otherCa = dir.resolve("other");
      CertificateAuthority.create("Some other CA").writeCa(otherCa);
      stranger.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, otherCa.resolve("ca.crt").toString());
      stranger.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
      try (KafkaProducer<String, String> p = new KafkaProducer<>(stranger)) {
        ExecutionException refused = assertThrows(ExecutionException.class,
            () -> p.send(new ProducerRecord<>("sealed", "k", "v")).get());
        assertInstanceOf(SslAuthenticationException.class, refused.getCause(), refused.toString());
      } catch (org.apache.kafka.common.KafkaException e) {
        assertInstanceOf(SslAuthenticationException.class, e.getCause() == null ? e : e.getCause());
      }
    }
  }

  private static Properties sasl(Path ca, String user, String password) {
    Properties p = new Properties();
    p.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
    p.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
    p.put(SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG, ca.toString());
    p.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-256");
    p.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
        + "username=\"" + user + "\" password=\"" + password + "\";");
    return p;
  }
}
