package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Asks every replica of the chosen shards for its status (one DescribeReplicas per broker), or every broker's role
 * board for the roles its replicas published ({@link #rolesOf}: all the under-replication the admin API's lists show
 * needs). A replica whose broker is unknown or does not answer within the timeout is missing from the result.
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
    return BrokerDirectories.find(system, timeout).thenCompose(directories -> collect(table, shards,
        byBroker -> BatchedDescribe.of(system, timeout, directories, byBroker)));
  }

  /** From every broker's {@link io.felix.broker.shard.ReplicaRoleBoard}: answered at once, offsets not current. */
  @Override
  public CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> rolesOf(AssignmentTable table,
      Predicate<ShardId> shards) {
    return BrokerDirectories.findRoleBoards(system, timeout).thenCompose(boards -> collect(table, shards,
        byBroker -> BatchedDescribe.roles(system, timeout, boards, byBroker)));
  }

  /** Asks each broker about its replicas of the chosen shards ({@code ask}) and files the answers by shard. */
  private static CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> collect(AssignmentTable table,
      Predicate<ShardId> shards, Function<Map<Integer, List<ShardId>>, CompletionStage<List<ReplicaStatus>>> ask) {
    Map<Integer, List<ShardId>> byBroker = new TreeMap<>();
    Map<ShardId, Map<Integer, ReplicaStatus>> statuses = new HashMap<>();
    for (ShardAssignment a : table.shards().values()) {
      if (shards.test(a.id())) {
        statuses.put(a.id(), new TreeMap<>());
        a.replicas().forEach(broker -> byBroker.computeIfAbsent(broker, b -> new ArrayList<>()).add(a.id()));
      }
    }
    return ask.apply(byBroker).thenApply(answered -> {
      answered.stream().filter(ReplicaStatus::hosted).forEach(s -> statuses.get(s.id()).put(s.brokerId(), s));
      return statuses;
    });
  }
}
