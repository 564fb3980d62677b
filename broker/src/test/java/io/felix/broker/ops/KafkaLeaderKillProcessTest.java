package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes ({@code bin/felix local up}, Kafka listeners on); a real KafkaProducer (idempotent, acks
 * all) writes while a real KafkaConsumer reads every partition; the broker leading the most partitions is
 * SIGKILLed. Every send must succeed, and the consumer must read every acknowledged record exactly once, at its
 * acknowledged offset, each partition in order: the producer's retries to the new leaders are answered as
 * duplicates, and the consumer's position survives the leader change (OffsetForLeaderEpoch finds no truncation).
 */
@Tag("process")
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES)
class KafkaLeaderKillProcessTest {
  private static final String TOPIC = "kafka-kill";
  private static final int PARTITIONS = 6;

  @TempDir Path dir;

  @Test
  void sigkilledLeaderLosesAndDuplicatesNothingForKafkaClients() throws Exception {
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"),
        UpOptions.brokers(3).zones(List.of("a", "b", "c")), LauncherEnvironment.brokersFromTestClasspath("384m",
            "FELIX_READY_TIMEOUT", "240"))) {
      String bootstrap = "127.0.0.1:" + launcher.kafkaPort(0) + ",127.0.0.1:" + launcher.kafkaPort(1)
          + ",127.0.0.1:" + launcher.kafkaPort(2);
      Map<Integer, Integer> leaders = new HashMap<>();
      try (Admin admin = Admin.create(common(bootstrap))) {
        admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3))).all().get();
        TopicDescription d = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC);
        d.partitions().forEach(p -> leaders.merge(p.leader().id(), 1, Integer::sum));
      }
      int victim = leaders.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();

      Map<TopicPartition, TreeMap<Long, String>> acked = new ConcurrentHashMap<>();
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      AtomicBoolean producing = new AtomicBoolean(true);
      AtomicInteger sent = new AtomicInteger();
      Thread producer = new Thread(() -> {
        try (KafkaProducer<String, String> p = new KafkaProducer<>(producerProps(bootstrap))) {
          int i = 0;
          while (producing.get()) {
            String value = "v-" + i;
            p.send(new ProducerRecord<>(TOPIC, "k-" + (i % 97), value), (m, e) -> {
              if (e != null) {
                failures.add(e);
              } else {
                acked.computeIfAbsent(new TopicPartition(TOPIC, m.partition()), x -> new TreeMap<>())
                    .put(m.offset(), value);
              }
            });
            sent.incrementAndGet();
            i++;
            if (i % 100 == 0) {
              Thread.sleep(20);
            }
          }
          p.flush();
        } catch (Exception e) {
          failures.add(e);
        }
      }, "kafka-producer");

      Map<TopicPartition, List<ConsumerRecord<String, String>>> read = new ConcurrentHashMap<>();
      AtomicBoolean consuming = new AtomicBoolean(true);
      Thread consumer = new Thread(() -> {
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(consumerProps(bootstrap))) {
          List<TopicPartition> all = new ArrayList<>();
          for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartition(TOPIC, p));
          }
          c.assign(all);
          c.seekToBeginning(all);
          while (consuming.get()) {
            for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
              read.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), x -> new CopyOnWriteArrayList<>())
                  .add(r);
            }
          }
        } catch (Exception e) {
          failures.add(e);
        }
      }, "kafka-consumer");
      producer.start();
      consumer.start();

      BrokerCluster.await(Duration.ofSeconds(90), "3000 records acknowledged", () -> count(acked) >= 3000);
      launcher.kill(victim);
      int atKill = count(acked);
      BrokerCluster.await(Duration.ofSeconds(120), "3000 more records acknowledged after the kill",
          () -> count(acked) >= atKill + 3000 || !failures.isEmpty());
      producing.set(false);
      producer.join(150_000);
      assertEquals(List.of(), failures.stream().map(Throwable::toString).toList(), "no send failed");
      assertEquals(sent.get(), count(acked), "every send acknowledged");
      BrokerCluster.await(Duration.ofSeconds(120), "every acknowledged record read",
          () -> read.values().stream().mapToInt(List::size).sum() >= count(acked));
      consuming.set(false);
      consumer.join(30_000);

      for (Map.Entry<TopicPartition, TreeMap<Long, String>> e : acked.entrySet()) {
        List<Long> offsets = read.getOrDefault(e.getKey(), List.of()).stream().map(ConsumerRecord::offset).toList();
        assertEquals(new ArrayList<>(e.getValue().keySet()), offsets, e.getKey() + ": each acknowledged offset once,"
            + " in order");
        for (ConsumerRecord<String, String> r : read.get(e.getKey())) {
          assertEquals(e.getValue().get(r.offset()), r.value(), e.getKey() + "@" + r.offset());
        }
      }
      System.out.printf("Kafka kill test: broker %d (leading %d of %d partitions) SIGKILLed after %d acknowledged;"
          + " %d sent, all acknowledged once and read once%n", victim, leaders.get(victim), PARTITIONS, atKill,
          sent.get());
    }
  }

  private static int count(Map<TopicPartition, TreeMap<Long, String>> acked) {
    return acked.values().stream().mapToInt(Map::size).sum();
  }

  private static Properties common(String bootstrap) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "1000");
    p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "500");
    return p;
  }

  private static Properties producerProps(String bootstrap) {
    Properties p = common(bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "15000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  private static Properties consumerProps(String bootstrap) {
    Properties p = common(bootstrap);
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return p;
  }
}
