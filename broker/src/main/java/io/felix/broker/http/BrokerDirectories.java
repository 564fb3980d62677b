package io.felix.broker.http;

import io.felix.broker.control.DirectoryProbe;
import io.felix.broker.shard.ReplicaDirectory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/** Every broker's {@link ReplicaDirectory} by broker id, as the Receptionist lists them now: whom the API asks. */
final class BrokerDirectories {

  private BrokerDirectories() {}

  static CompletionStage<Map<Integer, ActorRef<ReplicaDirectory.Command>>> find(ActorSystem<?> system,
      Duration timeout) {
    CompletionStage<Receptionist.Listing> listing = AskPattern.ask(system.receptionist(),
        replyTo -> Receptionist.find(ReplicaDirectory.SERVICE_KEY, replyTo), timeout, system.scheduler());
    return listing.thenApply(found ->
        DirectoryProbe.resolve(system, found.getServiceInstances(ReplicaDirectory.SERVICE_KEY)));
  }
}
