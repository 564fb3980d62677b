package io.felix.broker.kafka;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ClientListenerName;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.ClientRequests;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Uuid;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * What every Kafka API handler of a broker shares: the settings, the broker's data plane (its assignment table and
 * replicas), the native request path every Kafka request is translated onto, the Kafka addresses of the brokers,
 * and the security checks. Thread-safe (each part is).
 */
final class KafkaContext {
  final ActorSystem<?> system;
  final KafkaListenerSettings settings;
  final ReplicaRegistry registry;
  final BrokerSecurity security;
  final KafkaAddressBook.Entries addresses;
  private final ClientRequests nativeRequests;

  KafkaContext(ActorSystem<?> system, KafkaListenerSettings settings, ReplicaRegistry registry,
      ClientRequests nativeRequests, KafkaAddressBook.Entries addresses) {
    this.system = system;
    this.settings = settings;
    this.registry = registry;
    this.nativeRequests = nativeRequests;
    this.security = BrokerSecurity.of(system);
    this.addresses = addresses;
  }

  int brokerId() {
    return registry.brokerId();
  }

  AssignmentTable table() {
    return registry.table();
  }

  boolean forwards() {
    return settings.mode() == KafkaListenerMode.FORWARD;
  }

  /**
   * Sends a native request down the native client path (authorization, validation, the leader's append or read,
   * plain-mode forwarding), as the native listener's clients would, for {@code principal}.
   */
  CompletionStage<Response> felix(Request request, String principal) {
    return nativeRequests.handle(request, ClientListenerName.INTERNAL, principal);
  }

  Optional<ShardAssignment> shard(String topic, int partition) {
    return table().shard(new ShardId(topic, partition));
  }

  boolean authorized(String principal, ResourceType type, String name, Operation operation) {
    return security.authorized(principal, type, name, operation);
  }

  /** A stream's incarnation as its Kafka topic id (a stream created again gets another). */
  static Uuid topicId(UUID incarnation) {
    return new Uuid(incarnation.getMostSignificantBits(), incarnation.getLeastSignificantBits());
  }
}
