package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;

/** Each shard's commit offset as its leader's replica reports it (one DescribeReplicas per leader broker), for GET /v1/streams/{name}. */
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
      Map<Integer, List<ShardId>> byLeader = new TreeMap<>();
      for (ShardAssignment a : table.shards().values()) {
        if (a.id().stream().equals(stream) && a.leader() != ShardAssignment.NO_LEADER) {
          byLeader.computeIfAbsent(a.leader(), b -> new ArrayList<>()).add(a.id());
        }
      }
      return BatchedDescribe.of(system, timeout, directories, byLeader).thenApply(answered -> {
        Map<Integer, Long> offsets = new HashMap<>();
        answered.stream().filter(ReplicaStatus::hosted).filter(s -> s.role() != ReplicaRole.STARTING)
            .forEach(s -> offsets.put(s.id().shard(), s.commitOffset()));
        return offsets;
      });
    });
  }
}
