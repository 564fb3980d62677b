package io.felix.broker.http;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRoleBoard;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ReplicaStatuses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * Asks brokers for the status of many replicas with one {@link ReplicaDirectory.DescribeReplicas} per broker (split
 * past {@link #MAX_SHARDS_PER_ASK} shards), not one ask per replica: a 10,000-shard stream is a handful of asks. A
 * broker that does not answer in time is missing from the result; a replica that did not answer in time is missing
 * from its broker's answer.
 */
final class BatchedDescribe {

  static final int MAX_SHARDS_PER_ASK = 2_000;

  private BatchedDescribe() {}

  /** Every status that came back, from every broker asked about its shards in {@code shardsByBroker}. */
  static CompletionStage<List<ReplicaStatus>> of(ActorSystem<?> system, Duration timeout,
      Map<Integer, ActorRef<ReplicaDirectory.Command>> directories, Map<Integer, List<ShardId>> shardsByBroker) {
    // The replicas get a little less than the ask's timeout, so the partial answer arrives before the ask gives up.
    long replicaTimeoutMillis = Math.max(1, timeout.toMillis() * 4 / 5);
    return of(system, timeout, directories, shardsByBroker,
        (part, replyTo) -> new ReplicaDirectory.DescribeReplicas(0, part, replicaTimeoutMillis, replyTo));
  }

  /**
   * Every role that came back, from every broker's {@link ReplicaRoleBoard} asked about its shards in
   * {@code shardsByBroker}: roles, epochs and in-sync sets as the replicas published them (offsets not current).
   */
  static CompletionStage<List<ReplicaStatus>> roles(ActorSystem<?> system, Duration timeout,
      Map<Integer, ActorRef<ReplicaRoleBoard.Command>> boards, Map<Integer, List<ShardId>> shardsByBroker) {
    return of(system, timeout, boards, shardsByBroker,
        (part, replyTo) -> new ReplicaRoleBoard.DescribeRoles(0, part, false, replyTo));
  }

  private static <T> CompletionStage<List<ReplicaStatus>> of(ActorSystem<?> system, Duration timeout,
      Map<Integer, ActorRef<T>> askedByBroker, Map<Integer, List<ShardId>> shardsByBroker,
      BiFunction<List<ShardId>, ActorRef<ReplicaStatuses>, T> question) {
    List<CompletableFuture<List<ReplicaStatus>>> asks = new ArrayList<>();
    shardsByBroker.forEach((broker, shards) -> {
      ActorRef<T> asked = askedByBroker.get(broker);
      for (int from = 0; asked != null && from < shards.size(); from += MAX_SHARDS_PER_ASK) {
        List<ShardId> part = List.copyOf(shards.subList(from, Math.min(shards.size(), from + MAX_SHARDS_PER_ASK)));
        CompletionStage<ReplicaStatuses> answer = AskPattern.ask(asked, replyTo -> question.apply(part, replyTo),
            timeout, system.scheduler());
        asks.add(answer.toCompletableFuture().thenApply(ReplicaStatuses::statuses)
            .exceptionally(failure -> List.of()));
      }
    });
    return CompletableFuture.allOf(asks.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<ReplicaStatus> all = new ArrayList<>();
      asks.forEach(ask -> all.addAll(ask.join()));
      return all;
    });
  }
}
