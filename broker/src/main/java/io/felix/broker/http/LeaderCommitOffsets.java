package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/** Each shard's commit offset as its leader's replica reports it (DescribeReplica), for GET /v1/streams/{name}. */
public final class LeaderCommitOffsets implements AdminRoutes.CommitOffsets {

  private final ActorSystem<?> system;
  private final Duration timeout;

  public LeaderCommitOffsets(ActorSystem<?> system, Duration timeout) {
    this.system = system;
    this.timeout = timeout;
  }

  @Override
  public CompletionStage<Map<Integer, Long>> of(AssignmentTable table, String stream) {
    return BrokerDirectories.find(system, timeout).thenCompose(directories -> {
      Map<Integer, Long> offsets = new ConcurrentHashMap<>();
      List<CompletableFuture<Void>> asks = new ArrayList<>();
      for (ShardAssignment a : table.shards().values()) {
        ActorRef<ReplicaDirectory.Command> leader = directories.get(a.leader());
        if (!a.id().stream().equals(stream) || leader == null) {
          continue;
        }
        CompletionStage<ReplicaStatus> status = AskPattern.ask(leader,
            replyTo -> new ReplicaDirectory.DescribeReplica(a.id(), replyTo), timeout, system.scheduler());
        asks.add(status.toCompletableFuture()
            .thenAccept(s -> {
              if (s.hosted()) {
                offsets.put(a.id().shard(), s.commitOffset());
              }
            })
            .exceptionally(failure -> null));
      }
      return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(done -> Map.copyOf(offsets));
    });
  }
}
