package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Asks every replica of the chosen shards for its status (DescribeReplica), for the under-replication the admin API
 * shows. A replica whose broker is unknown or does not answer within the timeout is missing from the result.
 */
public final class ReplicaStatuses implements AdminRoutes.ShardStatuses {

  private final ActorSystem<?> system;
  private final Duration timeout;

  public ReplicaStatuses(ActorSystem<?> system, Duration timeout) {
    this.system = system;
    this.timeout = timeout;
  }

  @Override
  public CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> of(AssignmentTable table,
      Predicate<ShardId> shards) {
    return BrokerDirectories.find(system, timeout).thenCompose(directories -> {
      Map<ShardId, Map<Integer, ReplicaStatus>> statuses = new ConcurrentHashMap<>();
      List<CompletableFuture<Void>> asks = new ArrayList<>();
      for (ShardAssignment a : table.shards().values()) {
        if (!shards.test(a.id())) {
          continue;
        }
        statuses.put(a.id(), new ConcurrentHashMap<>());
        for (int broker : a.replicas()) {
          ActorRef<ReplicaDirectory.Command> directory = directories.get(broker);
          if (directory == null) {
            continue;
          }
          CompletionStage<ReplicaStatus> status = AskPattern.ask(directory,
              replyTo -> new ReplicaDirectory.DescribeReplica(a.id(), replyTo), timeout, system.scheduler());
          asks.add(status.toCompletableFuture()
              .thenAccept(s -> {
                if (s.hosted()) {
                  statuses.get(a.id()).put(broker, s);
                }
              })
              .exceptionally(failure -> null));
        }
      }
      return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(done -> Map.copyOf(statuses));
    });
  }
}
