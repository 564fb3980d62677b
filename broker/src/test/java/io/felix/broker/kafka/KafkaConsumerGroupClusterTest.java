package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Three real KafkaConsumers in one group read a topic while a KafkaProducer writes it; one member leaves half-way.
 * Each member commits what it read after every poll and when it gives partitions up, so together they read every
 * acknowledged record exactly once, and each partition in offset order across the hand-overs.
 */
@Tag("cluster")
class KafkaConsumerGroupClusterTest {
  private static final int RECORDS = 6000;

  /** One read: which member read which offset of which partition, in the order the reads happened. */
  private record Read(String member, long offset, String value) {}

  private final Map<TopicPartition, List<Read>> reads = new ConcurrentHashMap<>();
  private final AtomicInteger total = new AtomicInteger();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  @Test
  void threeMembersOneLeavingReadEveryRecordOnceInOrder() throws Exception {
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of());
         Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic("events", 6, (short) 3))).all().get();
      Map<TopicPartition, TreeMap<Long, String>> acked = new ConcurrentHashMap<>();
      Thread producer = new Thread(() -> produce(kafka, acked), "producer");
      producer.start();

      AtomicBoolean stop = new AtomicBoolean();
      CountDownLatch leaverMayGo = new CountDownLatch(1);
      List<Thread> members = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        String name = "member-" + i;
        boolean leaves = i == 2;
        Thread t = new Thread(() -> consume(kafka, name, leaves ? leaverMayGo : null, stop), name);
        members.add(t);
        t.start();
      }
      BrokerCluster.await(Duration.ofSeconds(60), "a third of the records read", () -> total.get() >= RECORDS / 3);
      leaverMayGo.countDown();
      members.get(2).join(30_000);
      assertTrue(!members.get(2).isAlive(), "the leaving member closed");

      producer.join(120_000);
      assertEquals(RECORDS, acked.values().stream().mapToInt(Map::size).sum(), "every record acknowledged");
      BrokerCluster.await(Duration.ofSeconds(60), "every record read", () -> total.get() >= RECORDS
          || failure.get() != null);
      // The leaver's departure starts a rebalance; while it runs, DescribeGroups shows the members without
      // assignments (as Kafka does), so the group is described until it is stable again.
      ConsumerGroupDescription[] described = new ConsumerGroupDescription[1];
      BrokerCluster.await(Duration.ofSeconds(30), "the group stable again after the leave", () -> {
        try {
          described[0] = admin.describeConsumerGroups(List.of("readers")).all().get().get("readers");
        } catch (InterruptedException | ExecutionException e) {
          throw new IllegalStateException("DescribeGroups failed", e);
        }
        return described[0].groupState() == GroupState.STABLE;
      });
      ConsumerGroupDescription group = described[0];
      assertEquals(2, group.members().size(), "two members remain: " + group);
      assertEquals(6, group.members().stream().mapToInt(m -> m.assignment().topicPartitions().size()).sum(),
          "the two members share the 6 partitions: " + group);
      stop.set(true);
      for (Thread t : members) {
        t.join(30_000);
      }
      assertEquals(null, failure.get(), "no member failed");

      for (Map.Entry<TopicPartition, TreeMap<Long, String>> e : acked.entrySet()) {
        List<Read> got = reads.getOrDefault(e.getKey(), List.of());
        List<Long> offsets = got.stream().map(Read::offset).toList();
        assertEquals(new ArrayList<>(e.getValue().keySet()), offsets,
            e.getKey() + " read once each, in offset order across members");
        for (Read r : got) {
          assertEquals(e.getValue().get(r.offset()), r.value(), e.getKey() + "@" + r.offset());
        }
      }
      assertEquals(RECORDS, total.get(), "no record read twice");
      Set<String> readers = new java.util.HashSet<>();
      reads.values().forEach(l -> l.forEach(r -> readers.add(r.member())));
      assertEquals(3, readers.size(), "every member read some records");
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("readers")
          .partitionsToOffsetAndMetadata().get();
      for (Map.Entry<TopicPartition, TreeMap<Long, String>> e : acked.entrySet()) {
        assertEquals(e.getValue().lastKey() + 1, committed.get(e.getKey()).offset(), "committed " + e.getKey());
      }
    }
  }

  private void produce(KafkaTestCluster kafka, Map<TopicPartition, TreeMap<Long, String>> acked) {
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(kafka.producer())) {
      List<Future<RecordMetadata>> futures = new ArrayList<>();
      List<String> values = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        values.add("v-" + i);
        futures.add(producer.send(new ProducerRecord<>("events", "k-" + (i % 60), "v-" + i)));
        if (i % 500 == 499) {
          Thread.sleep(100);
        }
      }
      for (int i = 0; i < RECORDS; i++) {
        RecordMetadata m = futures.get(i).get();
        acked.computeIfAbsent(new TopicPartition(m.topic(), m.partition()), x -> new TreeMap<>())
            .put(m.offset(), values.get(i));
      }
    } catch (Exception e) {
      failure.compareAndSet(null, e);
    }
  }

  /**
   * One member: reads, records what it read, commits after every poll (a commit refused because a rebalance began
   * is made again when the partitions are revoked), and leaves once {@code leave} opens, or stops with {@code stop}.
   */
  private void consume(KafkaTestCluster kafka, String name, CountDownLatch leave, AtomicBoolean stop) {
    Map<TopicPartition, OffsetAndMetadata> position = new HashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(kafka.consumer("readers"))) {
      consumer.subscribe(List.of("events"), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          Map<TopicPartition, OffsetAndMetadata> mine = new HashMap<>();
          partitions.forEach(tp -> {
            if (position.containsKey(tp)) {
              mine.put(tp, position.remove(tp));
            }
          });
          if (!mine.isEmpty()) {
            consumer.commitSync(mine);
          }
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        }
      });
      while (!stop.get() && (leave == null || leave.getCount() > 0)) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          reads.computeIfAbsent(tp, x -> java.util.Collections.synchronizedList(new ArrayList<>()))
              .add(new Read(name, r.offset(), r.value()));
          total.incrementAndGet();
          position.put(tp, new OffsetAndMetadata(r.offset() + 1));
        }
        if (!position.isEmpty()) {
          try {
            consumer.commitSync(position);
          } catch (RebalanceInProgressException | CommitFailedException e) {
            // committed when the partitions are revoked
          }
        }
      }
      if (!position.isEmpty()) {
        consumer.commitSync(position);
      }
    } catch (Throwable e) {
      failure.compareAndSet(null, e);
    }
  }
}
