package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The real kafka-clients 4.4 KafkaProducer (idempotent, acks all) and KafkaConsumer against three Felix brokers. */
@Tag("cluster")
class KafkaProducerClusterTest {

  @Test
  void idempotentProducerWritesEveryRecordOnceInOrderPerPartition() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of());
         Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic("orders", 6, (short) 3))).all().get();
      Map<TopicPartition, List<String>> sent = new HashMap<>();
      Map<TopicPartition, TreeMap<Long, String>> acked = new HashMap<>();
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka.producer())) {
        List<Future<RecordMetadata>> futures = new ArrayList<>();
        List<String> values = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
          String value = "v-" + i;
          values.add(value);
          futures.add(producer.send(new ProducerRecord<>("orders", "k-" + (i % 50), value)));
        }
        for (int i = 0; i < futures.size(); i++) {
          RecordMetadata m = futures.get(i).get();
          TopicPartition tp = new TopicPartition(m.topic(), m.partition());
          sent.computeIfAbsent(tp, x -> new ArrayList<>()).add(values.get(i));
          acked.computeIfAbsent(tp, x -> new TreeMap<>()).put(m.offset(), values.get(i));
        }
      }
      assertEquals(6, sent.size(), "keys spread over every partition");
      Map<TopicPartition, List<String>> read = new HashMap<>();
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(kafka.consumer("unused"))) {
        List<TopicPartition> all = new ArrayList<>(acked.keySet());
        consumer.assign(all);
        consumer.seekToBeginning(all);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int total = 0;
        while (total < 3000 && System.nanoTime() < deadline) {
          for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            read.computeIfAbsent(tp, x -> new ArrayList<>()).add(r.value());
            assertEquals(acked.get(tp).get(r.offset()), r.value(), "the record at " + tp + "@" + r.offset());
            total++;
          }
        }
        assertEquals(3000, total, "every acknowledged record read");
      }
      for (TopicPartition tp : sent.keySet()) {
        assertEquals(sent.get(tp), read.get(tp), "partition " + tp + " holds each record once, in send order");
        assertEquals(new ArrayList<>(acked.get(tp).values()), read.get(tp), tp + " in offset order");
      }
      assertTrue(acked.values().stream().allMatch(m -> m.firstKey() == 0L), "each partition starts at offset 0");
    }
  }
}
