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
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * Asks the replicas named in one batched question of the control plane ({@link ReplicaDirectory.FenceShards},
 * {@link ReplicaDirectory.DescribeReplicas}) and gathers their answers into one {@link ReplicaStatuses}, sent once every
 * replica asked has answered or once the request's time is up (with what arrived). A replica still busy (opening its
 * log, storing its promise behind thousands of others) answers later than that: with {@code lateFor} above zero the
 * collector goes on for that long, sending what arrived each further timeout under the same request id, so that a
 * fence adopted late still counts (2026-12-07: a broker's replicas answered the fences of a 10,000-shard cluster
 * start to collectors already stopped, dead letters, and the rounds waited through the whole grace). Short-lived: one
 * per request, stopped after its last answer.
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
  private final TimerScheduler<Command> timers;
  private final Duration timeout;
  /** Further timeouts this collector may still wait for late answers after the first. */
  private long lateTimeoutsLeft;
  /** Whether an answer went out: the first timeout sends one even with nothing in it. */
  private boolean sentOnce;

  /**
   * @param tableVersion the version of the assignment table the broker had applied when asked
   * @param asked each replica to ask, by shard
   * @param question the message that asks a shard's replica, given where it answers (a Fence or a Describe)
   * @param already statuses known without asking (not hosted, still opening)
   * @param lateFor how long after the timeout late answers are still sent on (zero: answer once)
   */
  static Behavior<Command> create(long requestId, int brokerId, long tableVersion,
      Map<ShardId, ActorRef<ShardReplica.Command>> asked,
      BiFunction<ShardId, ActorRef<ReplicaStatus>, ShardReplica.Command> question, List<ReplicaStatus> already,
      Duration timeout, Duration lateFor, ActorRef<ReplicaStatuses> replyTo) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      if (asked.isEmpty()) {
        replyTo.tell(new ReplicaStatuses(requestId, brokerId, tableVersion, already));
        return Behaviors.stopped();
      }
      ActorRef<ReplicaStatus> answers = context.messageAdapter(ReplicaStatus.class, Answered::new);
      asked.forEach((shard, replica) -> replica.tell(question.apply(shard, answers)));
      timers.startSingleTimer(TimeUp.INSTANCE, timeout);
      return new StatusCollector(context, timers, requestId, brokerId, tableVersion, asked.keySet(), already, timeout,
          lateFor.toMillis() / Math.max(1, timeout.toMillis()), replyTo);
    }));
  }

  private StatusCollector(ActorContext<Command> context, TimerScheduler<Command> timers, long requestId, int brokerId,
      long tableVersion, Set<ShardId> awaited, List<ReplicaStatus> already, Duration timeout, long lateTimeouts,
      ActorRef<ReplicaStatuses> replyTo) {
    super(context);
    this.timers = timers;
    this.requestId = requestId;
    this.brokerId = brokerId;
    this.tableVersion = tableVersion;
    this.awaited = new HashSet<>(awaited);
    this.statuses = new ArrayList<>(already);
    this.timeout = timeout;
    this.lateTimeoutsLeft = lateTimeouts;
    this.replyTo = replyTo;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Answered.class, this::onAnswered)
        .onMessageEquals(TimeUp.INSTANCE, this::onTimeUp)
        .build();
  }

  private Behavior<Command> onAnswered(Answered answered) {
    if (awaited.remove(answered.status().id())) {
      statuses.add(answered.status());
    }
    if (awaited.isEmpty()) {
      send();
      return Behaviors.stopped();
    }
    return this;
  }

  /** Sends what arrived (the first time even nothing); waits for late answers while it may, else stops. */
  private Behavior<Command> onTimeUp() {
    send();
    if (lateTimeoutsLeft-- <= 0) {
      return Behaviors.stopped();
    }
    timers.startSingleTimer(TimeUp.INSTANCE, timeout);
    return this;
  }

  private void send() {
    if (!statuses.isEmpty() || !sentOnce) {
      replyTo.tell(new ReplicaStatuses(requestId, brokerId, tableVersion, List.copyOf(statuses)));
      statuses.clear();
      sentOnce = true;
    }
  }
}
