package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.node.BrokerNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * felix.kafka-listener.mode = forward: a Kafka client that knows one broker is told that broker leads every
 * partition, writes every partition through it (the broker forwards to the real leaders), and reads back what it
 * wrote from that broker's replicas.
 */
@Tag("cluster")
class KafkaForwardModeClusterTest {

  @Test
  void oneBrokerTakesEveryPartitionsWritesAndForwardsThem() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of("felix.kafka-listener.mode", "forward"))) {
      BrokerNode entry = kafka.cluster.broker(1);
      Properties only = new Properties();
      only.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafka.kafkaPort(1));
      try (Admin admin = Admin.create(merge(kafka.common(), only))) {
        admin.createTopics(List.of(new NewTopic("plain", 6, (short) 3))).all().get();
        TopicDescription d = admin.describeTopics(List.of("plain")).allTopicNames().get().get("plain");
        d.partitions().forEach(p -> assertEquals(1, p.leader().id(), "broker 1 answers as every leader: " + p));
        assertEquals(1, admin.describeCluster().nodes().get().size(), "the client is told of one broker");
      }
      Map<TopicPartition, List<String>> sent = new HashMap<>();
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(merge(kafka.producer(), only))) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        for (int i = 0; i < 1200; i++) {
          futures.add(producer.send(new ProducerRecord<>("plain", "k" + (i % 30), "v" + i)));
        }
        for (int i = 0; i < futures.size(); i++) {
          RecordMetadata m = futures.get(i).get();
          sent.computeIfAbsent(new TopicPartition("plain", m.partition()), x -> new ArrayList<>()).add("v" + i);
        }
      }
      assertEquals(6, sent.size());
      assertTrue(entry.dataPlane().forwardedBatches() > 0, "broker 1 forwarded the batches it does not lead");

      Map<TopicPartition, List<String>> read = new HashMap<>();
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(merge(kafka.consumer("unused"), only))) {
        consumer.assign(new ArrayList<>(sent.keySet()));
        consumer.seekToBeginning(sent.keySet());
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int total = 0;
        while (total < 1200 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            read.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), x -> new ArrayList<>()).add(r.value());
            total++;
          }
        }
      }
      assertEquals(sent, read, "every record once, each partition in send order, read through broker 1 alone");
    }
  }

  private static Properties merge(Properties base, Properties over) {
    Properties p = new Properties();
    p.putAll(base);
    p.putAll(over);
    return p;
  }
}
