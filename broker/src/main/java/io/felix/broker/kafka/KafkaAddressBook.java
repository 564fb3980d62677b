package io.felix.broker.kafka;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * Where every broker's Kafka listener is, for Metadata and FindCoordinator answers. The assignment table knows each
 * broker's native addresses only, so each broker announces its Kafka address through the cluster receptionist (no
 * message of Felix's own crosses Artery for it): it spawns an empty actor whose name spells the address
 * ({@code kafka-<broker id>-<port>-<host, URL-encoded>}) and registers it; every broker subscribes and keeps the
 * names it lists. The receptionist drops a broker's entry when it leaves or is downed.
 */
final class KafkaAddressBook extends AbstractBehavior<KafkaAddressBook.Command> {
  static final ServiceKey<Void> KEY = ServiceKey.create(Void.class, "felix-kafka-listener");
  private static final String PREFIX = "kafka-";

  sealed interface Command {}

  private record Listed(Receptionist.Listing listing) implements Command {}

  /** A broker's Kafka address. */
  record Address(int brokerId, String host, int port) {}

  /** The book as this broker last heard it; read by the listener's threads. */
  static final class Entries {
    private volatile Map<Integer, Address> byBroker = Map.of();

    Optional<Address> of(int brokerId) {
      return Optional.ofNullable(byBroker.get(brokerId));
    }

    Map<Integer, Address> all() {
      return byBroker;
    }
  }

  private final Entries entries;
  private final Address self;

  private KafkaAddressBook(ActorContext<Command> context, Address self, Entries entries) {
    super(context);
    this.entries = entries;
    this.self = self;
    ActorRef<Void> marker = context.spawn(Behaviors.empty(), nameOf(self));
    context.getSystem().receptionist().tell(Receptionist.register(KEY, marker));
    ActorRef<Receptionist.Listing> adapter = context.messageAdapter(Receptionist.Listing.class, Listed::new);
    context.getSystem().receptionist().tell(Receptionist.subscribe(KEY, adapter));
    Map<Integer, Address> own = new TreeMap<>();
    own.put(self.brokerId(), self);
    entries.byBroker = Map.copyOf(own); // this broker's own address is known before the receptionist answers
  }

  static Behavior<Command> create(Address self, Entries entries) {
    return Behaviors.setup(context -> new KafkaAddressBook(context, self, entries));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder().onMessage(Listed.class, this::onListed).build();
  }

  private Behavior<Command> onListed(Listed listed) {
    Map<Integer, Address> next = new TreeMap<>();
    for (ActorRef<Void> ref : listed.listing().getServiceInstances(KEY)) {
      parse(ref.path().name()).ifPresent(a -> next.put(a.brokerId(), a));
    }
    next.put(self.brokerId(), self);
    entries.byBroker = Map.copyOf(next);
    getContext().getLog().debug("Kafka listeners known: {}", next.values());
    return this;
  }

  static String nameOf(Address a) {
    return PREFIX + a.brokerId() + "-" + a.port() + "-" + URLEncoder.encode(a.host(), StandardCharsets.UTF_8);
  }

  static Optional<Address> parse(String name) {
    if (!name.startsWith(PREFIX)) {
      return Optional.empty();
    }
    String[] parts = name.substring(PREFIX.length()).split("-", 3);
    try {
      return Optional.of(new Address(Integer.parseInt(parts[0]), URLDecoder.decode(parts[2], StandardCharsets.UTF_8),
          Integer.parseInt(parts[1])));
    } catch (RuntimeException e) {
      return Optional.empty();
    }
  }
}
