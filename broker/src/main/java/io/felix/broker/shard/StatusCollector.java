package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * Asks the replicas named in one batched question of the control plane ({@link ReplicaDirectory.FenceShards},
 * {@link ReplicaDirectory.DescribeReplicas}) and gathers their answers into one {@link ReplicaStatuses}, sent once every replica asked has
 * answered or once the request's time is up (with what arrived: a replica still busy opening its log answers
 * later than that, and the asker asks again). Short-lived: one per request, stopped after its answer.
 */
final class StatusCollector extends AbstractBehavior<StatusCollector.Command> {

  sealed interface Command {}

  /** A replica's answer (the replicas reply to this actor, narrowed to {@link ReplicaStatus}). */
  private record Answered(ReplicaStatus status) implements Command {}

  private enum TimeUp implements Command { INSTANCE }

  private final long requestId;
  private final int brokerId;
  private final long tableVersion;
  private final Set<ShardId> awaited;
  private final List<ReplicaStatus> statuses;
  private final ActorRef<ReplicaStatuses> replyTo;

  /**
   * @param tableVersion the version of the assignment table the broker had applied when asked
   * @param asked each replica to ask, by shard
   * @param question the message that asks a shard's replica, given where it answers (a Fence or a Describe)
   * @param already statuses known without asking (not hosted, still opening)
   */
  static Behavior<Command> create(long requestId, int brokerId, long tableVersion,
      Map<ShardId, ActorRef<ShardReplica.Command>> asked,
      BiFunction<ShardId, ActorRef<ReplicaStatus>, ShardReplica.Command> question, List<ReplicaStatus> already,
      Duration timeout, ActorRef<ReplicaStatuses> replyTo) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      if (asked.isEmpty()) {
        replyTo.tell(new ReplicaStatuses(requestId, brokerId, tableVersion, already));
        return Behaviors.stopped();
      }
      ActorRef<ReplicaStatus> answers = context.messageAdapter(ReplicaStatus.class, Answered::new);
      asked.forEach((shard, replica) -> replica.tell(question.apply(shard, answers)));
      timers.startSingleTimer(TimeUp.INSTANCE, timeout);
      return new StatusCollector(context, requestId, brokerId, tableVersion, asked.keySet(), already, replyTo);
    }));
  }

  private StatusCollector(ActorContext<Command> context, long requestId, int brokerId, long tableVersion,
      Set<ShardId> awaited, List<ReplicaStatus> already, ActorRef<ReplicaStatuses> replyTo) {
    super(context);
    this.requestId = requestId;
    this.brokerId = brokerId;
    this.tableVersion = tableVersion;
    this.awaited = new HashSet<>(awaited);
    this.statuses = new ArrayList<>(already);
    this.replyTo = replyTo;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Answered.class, this::onAnswered)
        .onMessageEquals(TimeUp.INSTANCE, this::answer)
        .build();
  }

  private Behavior<Command> onAnswered(Answered answered) {
    if (awaited.remove(answered.status().id())) {
      statuses.add(answered.status());
    }
    return awaited.isEmpty() ? answer() : this;
  }

  private Behavior<Command> answer() {
    replyTo.tell(new ReplicaStatuses(requestId, brokerId, tableVersion, statuses));
    return Behaviors.stopped();
  }
}
