package io.felix.broker.kafka;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One per broker: the membership of the Kafka consumer groups this broker coordinates ({@link ClassicGroup} each).
 * Membership lives in memory, as a Kafka coordinator's between its offsets-topic loads: when the group's shard of
 * __consumer_offsets moves to another broker, this one drops the group (parked requests get NOT_COORDINATOR) and
 * the members join the new coordinator afresh; their committed offsets are in __consumer_offsets.
 */
final class KafkaGroupCoordinator extends AbstractBehavior<KafkaGroupCoordinator.Command> {
  private static final Duration TICK = Duration.ofMillis(100);

  sealed interface Command {}

  record Join(JoinGroupRequestData request, short version, String clientId, String clientHost,
      CompletableFuture<JoinGroupResponseData> reply) implements Command {}

  record Sync(SyncGroupRequestData request, CompletableFuture<SyncGroupResponseData> reply) implements Command {}

  record Heartbeat(String groupId, String memberId, int generation, CompletableFuture<Errors> reply)
      implements Command {}

  record Leave(String groupId, List<String> memberIds, CompletableFuture<List<Errors>> reply) implements Command {}

  record MayCommit(String groupId, String memberId, int generation, CompletableFuture<Errors> reply)
      implements Command {}

  record Describe(List<String> groupIds, CompletableFuture<List<DescribedGroup>> reply) implements Command {}

  record ListAll(CompletableFuture<List<ListedGroup>> reply) implements Command {}

  private enum Tick implements Command { INSTANCE }

  private final ClassicGroup.Timing timing;
  private final Clock clock;
  private final Predicate<String> coordinates;
  private final Map<String, ClassicGroup> groups = new HashMap<>();

  private KafkaGroupCoordinator(ActorContext<Command> context, TimerScheduler<Command> timers,
      ClassicGroup.Timing timing, Clock clock, Predicate<String> coordinates) {
    super(context);
    this.timing = timing;
    this.clock = clock;
    this.coordinates = coordinates;
    timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
  }

  /** @param coordinates whether this broker coordinates a group now (it leads the group's offsets shard) */
  static Behavior<Command> create(ClassicGroup.Timing timing, Clock clock, Predicate<String> coordinates) {
    return Behaviors.setup(context -> Behaviors.withTimers(
        timers -> new KafkaGroupCoordinator(context, timers, timing, clock, coordinates)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Join.class, this::onJoin)
        .onMessage(Sync.class, this::onSync)
        .onMessage(Heartbeat.class, h -> {
          ClassicGroup g = groups.get(h.groupId());
          h.reply().complete(g == null ? Errors.UNKNOWN_MEMBER_ID : g.heartbeat(h.memberId(), h.generation()));
          return this;
        })
        .onMessage(Leave.class, this::onLeave)
        .onMessage(MayCommit.class, c -> {
          ClassicGroup g = groups.get(c.groupId());
          c.reply().complete(g == null
              ? (c.generation() < 0 && c.memberId().isEmpty() ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID)
              : g.mayCommit(c.memberId(), c.generation()));
          return this;
        })
        .onMessage(Describe.class, d -> {
          List<DescribedGroup> out = new ArrayList<>();
          for (String id : d.groupIds()) {
            ClassicGroup g = groups.get(id);
            out.add(g != null ? g.describe() : new DescribedGroup().setGroupId(id).setErrorCode(Errors.NONE.code())
                .setGroupState("Dead").setProtocolType("").setProtocolData(""));
          }
          d.reply().complete(out);
          return this;
        })
        .onMessage(ListAll.class, l -> {
          List<ListedGroup> out = new ArrayList<>();
          groups.forEach((id, g) -> out.add(new ListedGroup().setGroupId(id)
              .setProtocolType(g.protocolType() == null ? "" : g.protocolType())
              .setGroupState(g.state().kafkaName).setGroupType("classic")));
          l.reply().complete(out);
          return this;
        })
        .onMessageEquals(Tick.INSTANCE, this::onTick)
        .build();
  }

  private Behavior<Command> onJoin(Join j) {
    ClassicGroup g = groups.computeIfAbsent(j.request().groupId(), id -> new ClassicGroup(id, timing,
        clock::millis, () -> UUID.randomUUID().toString()));
    int generation = g.generation();
    j.reply().thenAccept(answer -> {
      if (answer.errorCode() == Errors.NONE.code() && answer.generationId() != generation
          && answer.memberId().equals(answer.leader())) {
        getContext().getLog().info("Kafka group {}: generation {} with {} members, protocol {}",
            j.request().groupId(), answer.generationId(), answer.members().size(), answer.protocolName());
      }
    });
    g.join(j.request(), j.version(), j.clientId(), j.clientHost(), j.reply());
    return this;
  }

  private Behavior<Command> onSync(Sync s) {
    ClassicGroup g = groups.get(s.request().groupId());
    if (g == null) {
      s.reply().complete(new SyncGroupResponseData().setErrorCode(Errors.UNKNOWN_MEMBER_ID.code())
          .setAssignment(new byte[0]));
    } else {
      g.sync(s.request(), s.reply());
    }
    return this;
  }

  private Behavior<Command> onLeave(Leave l) {
    ClassicGroup g = groups.get(l.groupId());
    List<Errors> out = new ArrayList<>();
    for (String member : l.memberIds()) {
      out.add(g == null ? Errors.UNKNOWN_MEMBER_ID : g.leave(member));
    }
    if (g != null) {
      getContext().getLog().info("Kafka group {}: members {} left ({} remain)", l.groupId(), l.memberIds(),
          g.memberCount());
    }
    l.reply().complete(out);
    return this;
  }

  private Behavior<Command> onTick() {
    int dropped = 0;
    for (Iterator<Map.Entry<String, ClassicGroup>> it = groups.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, ClassicGroup> e = it.next();
      if (!coordinates.test(e.getKey())) {
        e.getValue().abandon();
        it.remove();
        dropped++;
        continue;
      }
      e.getValue().tick();
      if (e.getValue().idle() && e.getValue().state() == ClassicGroup.State.EMPTY) {
        it.remove();
      }
    }
    if (dropped > 0) {
      getContext().getLog().info("dropped {} Kafka group(s) whose offsets shard this broker no longer leads", dropped);
    }
    return this;
  }
}
