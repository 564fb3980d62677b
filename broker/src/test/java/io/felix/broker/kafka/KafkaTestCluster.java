package io.felix.broker.kafka;

import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A {@link BrokerCluster} whose brokers run the Kafka listener, each on a port reserved here, with the properties
 * of real Kafka clients pointed at it.
 */
final class KafkaTestCluster implements AutoCloseable {
  final BrokerCluster cluster;
  private final Map<Integer, Integer> kafkaPorts = new TreeMap<>();
  /** Added to every client's properties (security settings for a cluster under TLS or SASL). */
  private final Properties clientExtras = new Properties();

  private final Map<String, Object> overrides;

  private KafkaTestCluster(BrokerCluster cluster, Map<String, Object> overrides) {
    this.cluster = cluster;
    this.overrides = overrides;
  }

  static KafkaTestCluster start(int brokers, Map<String, Object> overrides) {
    KafkaTestCluster kafka = create(overrides);
    for (int i = 0; i < brokers; i++) {
      kafka.add(i);
    }
    kafka.awaitStarted(brokers);
    return kafka;
  }

  /** A cluster without brokers yet: {@link #add} them (with per-broker overrides), then {@link #awaitStarted}. */
  static KafkaTestCluster create(Map<String, Object> overrides) {
    Map<String, Object> all = new HashMap<>(overrides);
    all.put("felix.kafka-listener.enabled", "on");
    all.putIfAbsent("felix.kafka-listener.initial-rebalance-delay", "100ms");
    return new KafkaTestCluster(new BrokerCluster(all), all);
  }

  /** Properties every client of this cluster gets from now on. */
  void clientProperties(Properties extras) {
    clientExtras.putAll(extras);
  }

  /** Waits until the brokers are up, ready and know each other's Kafka listeners. */
  void awaitStarted(int brokers) {
    cluster.awaitUp(brokers);
    cluster.awaitReady();
    boolean authenticates = "on".equals(String.valueOf(overrides.get("felix.security.client-authentication")));
    if (!authenticates || !clientExtras.isEmpty()) { // without credentials yet, the clients retry instead
      // in forward mode every broker tells clients of itself alone
      awaitKafkaAddresses("forward".equals(overrides.get("felix.kafka-listener.mode")) ? 1 : brokers);
    }
  }

  /**
   * Waits until every live broker tells Kafka clients of {@code brokers} brokers: each learns the others' Kafka
   * addresses through the cluster receptionist, a moment after the cluster formed.
   */
  void awaitKafkaAddresses(int brokers) {
    for (BrokerNode b : cluster.live()) {
      Properties p = common();
      p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + kafkaPorts.get(b.id()));
      try (Admin admin = Admin.create(p)) {
        BrokerCluster.await(Duration.ofSeconds(30), "broker " + b.id() + " knows " + brokers + " Kafka listeners",
            () -> {
              try {
                return admin.describeCluster().nodes().get().size() == brokers;
              } catch (Exception e) {
                return false;
              }
            });
      }
    }
  }

  /** Starts broker {@code id} with a Kafka listener on a free port. */
  BrokerNode add(int id) {
    int port = freePort();
    kafkaPorts.put(id, port);
    cluster.override("felix.kafka-listener.port", port);
    return cluster.add(id, "");
  }

  int kafkaPort(int brokerId) {
    return kafkaPorts.get(brokerId);
  }

  /** Every live broker's Kafka address. */
  String bootstrap() {
    List<String> live = cluster.live().stream().map(b -> "127.0.0.1:" + kafkaPorts.get(b.id())).toList();
    return String.join(",", live);
  }

  Properties common() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    p.put(AdminClientConfig.METADATA_MAX_AGE_CONFIG, "1000");
    p.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "50");
    p.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "500");
    p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "500");
    p.putAll(clientExtras);
    return p;
  }

  Admin admin() {
    return Admin.create(common());
  }

  /** An idempotent producer with acks all and string keys and values. */
  Properties producer() {
    Properties p = common();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  /** A consumer of group {@code group}, manual commits, from the earliest offset. */
  Properties consumer(String group) {
    Properties p = common();
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
    p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
    p.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "30000");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return p;
  }

  static Duration seconds(long s) {
    return Duration.ofSeconds(s);
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    cluster.close();
  }

}
