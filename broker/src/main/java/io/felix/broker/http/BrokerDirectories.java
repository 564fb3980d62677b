package io.felix.broker.http;

import io.felix.broker.control.DirectoryProbe;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRoleBoard;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * Every broker's {@link ReplicaDirectory} (or {@link ReplicaRoleBoard}) by broker id, as the Receptionist lists them
 * now: whom the API asks.
 */
final class BrokerDirectories {

  private BrokerDirectories() {}

  static CompletionStage<Map<Integer, ActorRef<ReplicaDirectory.Command>>> find(ActorSystem<?> system,
      Duration timeout) {
    return find(system, timeout, ReplicaDirectory.SERVICE_KEY);
  }

  /** Every broker's {@link ReplicaRoleBoard} by broker id. */
  static CompletionStage<Map<Integer, ActorRef<ReplicaRoleBoard.Command>>> findRoleBoards(ActorSystem<?> system,
      Duration timeout) {
    return find(system, timeout, ReplicaRoleBoard.SERVICE_KEY);
  }

  private static <T> CompletionStage<Map<Integer, ActorRef<T>>> find(ActorSystem<?> system, Duration timeout,
      ServiceKey<T> key) {
    CompletionStage<Receptionist.Listing> listing = AskPattern.ask(system.receptionist(),
        replyTo -> Receptionist.find(key, replyTo), timeout, system.scheduler());
    return listing.thenApply(found -> DirectoryProbe.resolve(system, found.getServiceInstances(key)));
  }
}
