package io.felix.broker.kafka;

import io.felix.broker.client.ClientRequests;
import io.felix.broker.control.PlacementController;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.tls.TlsSettings;
import java.time.Clock;
import java.util.Optional;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka side of one broker, started by the broker's guardian when felix.kafka-listener is enabled: the
 * listener, the address book that tells every broker where the others' Kafka listeners are, and the Kafka
 * consumer-group coordinator. The listener closes when the ActorSystem terminates.
 */
public final class KafkaBroker {
  private static final Logger log = LoggerFactory.getLogger(KafkaBroker.class);

  private final KafkaListener listener;

  private KafkaBroker(KafkaListener listener) {
    this.listener = listener;
  }

  /**
   * Starts the Kafka listener under {@code guardian} when {@code felix.kafka-listener.enabled}; empty otherwise.
   *
   * @param nativeRequests the native client path every Kafka request is translated onto
   * @param advertisedHost the host clients reach this broker by (felix.kafka-listener.advertised-host overrides it)
   */
  public static Optional<KafkaBroker> startIfEnabled(ActorContext<?> guardian, ReplicaRegistry registry,
      ClientRequests nativeRequests, ActorRef<PlacementController.Command> singleton, String host,
      String advertisedHost) {
    ActorSystem<?> system = guardian.getSystem();
    KafkaListenerSettings settings = KafkaListenerSettings.from(system.settings().config());
    if (!settings.enabled()) {
      return Optional.empty();
    }
    KafkaAddressBook.Entries addresses = new KafkaAddressBook.Entries();
    KafkaContext ctx = new KafkaContext(system, settings, registry, nativeRequests, addresses);
    KafkaGroups groups = KafkaGroups.start(guardian, ctx, Clock.systemUTC());
    KafkaRequests requests = new KafkaRequests(ctx, new KafkaTopics(ctx, singleton), groups);
    KafkaListener listener = new KafkaListener(system, settings, TlsSettings.fromConfig(system.settings().config()),
        requests, host);
    String advertised = settings.advertisedHost().isBlank() ? advertisedHost : settings.advertisedHost();
    int port = settings.advertisedPort() > 0 ? settings.advertisedPort() : listener.boundPort();
    guardian.spawn(KafkaAddressBook.create(new KafkaAddressBook.Address(registry.brokerId(), advertised, port),
        addresses), "kafka-address-book");
    system.getWhenTerminated().thenRun(listener::close);
    log.info("broker {}: Kafka listener on {}:{}, advertised as {}:{}, mode {}", registry.brokerId(), host,
        listener.boundPort(), advertised, port, settings.mode());
    return Optional.of(new KafkaBroker(listener));
  }

  /** The port the Kafka listener is bound to. */
  public int port() {
    return listener.boundPort();
  }

  /** Kafka client connections open now. */
  public int openConnections() {
    return listener.openConnections();
  }
}
