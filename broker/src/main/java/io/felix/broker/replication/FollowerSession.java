package io.felix.broker.replication;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.SessionLink;
import io.felix.broker.shard.ShardRefs;
import io.felix.broker.shard.ShardReplica;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.FetchError;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The leader side of one follower broker's fetch session ({@link SessionOutbox}): each position in a request goes to
 * the shard's replica here ({@link ShardReplica.FollowerFetch}, which checks and records it), the shard leaders put
 * their answers in through {@link #link}, and the parked request is answered when they come or after fetch-max-wait.
 * When the follower broker stops asking for isr-max-lag-time, every replica that had a position of it is told
 * ({@link ShardReplica.FollowerSessionEnded}): its follower may leave the in-sync set. One per follower broker.
 */
final class FollowerSession extends AbstractBehavior<FollowerSession.Command> {

  sealed interface Command permits RequestArrived, ResultReady, Answer, MaxWaitPassed, CheckExpiry {}

  record RequestArrived(FetchSessionRequest request) implements Command {}

  /** A shard leader's answer for session {@code sessionId}. */
  record ResultReady(long sessionId, ReplicaFetchResult result) implements Command {}

  /** Answers the parked request if due; queued behind the results already waiting, so that they go together. */
  private enum Answer implements Command { INSTANCE }

  private record MaxWaitPassed(long sequence) implements Command {}

  private enum CheckExpiry implements Command { INSTANCE }

  private static final String MAX_WAIT = "max-wait";

  private final int selfId;
  private final int followerBroker;
  private final Supplier<ReplicationTransport> transport;
  private final ReplicaRegistry registry;
  private final ReplicationSettings settings;
  private final TimerScheduler<Command> timers;
  private final SessionOutbox outbox;
  private final Link link;
  /** The replicas that had a position of the current session: told when it expires. */
  private final Set<ActorRef<ShardReplica.Command>> routedTo = new HashSet<>();
  private boolean answerQueued;

  /** What shard leaders see of this session; its fields are written by the actor only. */
  private static final class Link implements SessionLink {
    private final ActorRef<Command> session;
    private volatile long sessionId = Long.MIN_VALUE;
    private volatile long lastRequestNanos = Long.MIN_VALUE;

    Link(ActorRef<Command> session) {
      this.session = session;
    }

    @Override
    public void deliver(long forSession, ReplicaFetchResult result) {
      session.tell(new ResultReady(forSession, result));
    }

    @Override
    public long lastRequestNanos(long forSession) {
      return forSession == sessionId ? lastRequestNanos : Long.MIN_VALUE;
    }
  }

  private FollowerSession(ActorContext<Command> context, TimerScheduler<Command> timers, int selfId,
      int followerBroker, Supplier<ReplicationTransport> transport, ReplicaRegistry registry,
      ReplicationSettings settings) {
    super(context);
    this.timers = timers;
    this.selfId = selfId;
    this.followerBroker = followerBroker;
    this.transport = transport;
    this.registry = registry;
    this.settings = settings;
    this.outbox = new SessionOutbox(settings.fetchMaxWait(), settings.isrMaxLagTime(), settings.fetchSessionMaxBytes());
    this.link = new Link(context.getSelf());
  }

  static Behavior<Command> create(int selfId, int followerBroker, Supplier<ReplicationTransport> transport,
      ReplicaRegistry registry, ReplicationSettings settings) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(CheckExpiry.INSTANCE, settings.isrMaxLagTime().dividedBy(4));
      return new FollowerSession(context, timers, selfId, followerBroker, transport, registry, settings);
    }));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(RequestArrived.class, this::onRequest)
        .onMessage(ResultReady.class, r -> {
          outbox.onResult(r.sessionId(), r.result());
          if (outbox.parkedSequence().isPresent() && outbox.hasWaiting()) {
            queueAnswer();
          }
          return this;
        })
        .onMessageEquals(Answer.INSTANCE, () -> {
          answerQueued = false;
          outbox.answerIfDue(System.nanoTime()).ifPresent(this::send);
          return this;
        })
        .onMessage(MaxWaitPassed.class, m -> {
          if (outbox.parkedSequence().filter(s -> s == m.sequence()).isPresent()) {
            outbox.answerNow().ifPresent(this::send);
          }
          return this;
        })
        .onMessageEquals(CheckExpiry.INSTANCE, this::onCheckExpiry)
        .build();
  }

  private Behavior<Command> onRequest(RequestArrived arrived) {
    FetchSessionRequest request = arrived.request();
    long now = System.nanoTime();
    SessionOutbox.Step step = outbox.onRequest(request, now);
    step.answers().forEach(this::send);
    if (!step.routeEntries()) {
      return this;
    }
    if (step.newSession()) {
      routedTo.clear();
      getContext().getLog().info("broker {}: follower broker {} started fetch session {} with {} shard(s) in its "
          + "first request", selfId, followerBroker, request.getSessionId(), request.getEntriesCount());
    }
    link.sessionId = outbox.sessionId();
    link.lastRequestNanos = now;
    for (ReplicaFetch entry : request.getEntriesList()) {
      route(entry);
    }
    if (outbox.hasWaiting()) {
      queueAnswer();
    } else {
      timers.startSingleTimer(MAX_WAIT, new MaxWaitPassed(request.getSequence()), settings.fetchMaxWait());
    }
    return this;
  }

  /** Gives a position to its shard's replica here, or answers NOT_LEADER when there is none. */
  private void route(ReplicaFetch entry) {
    Optional<ActorRef<ShardReplica.Command>> replica;
    try {
      ShardId id = ShardRefs.toId(entry.getShard());
      replica = registry.replica(id);
    } catch (IllegalArgumentException e) {
      replica = Optional.empty();
    }
    if (replica.isPresent()) {
      routedTo.add(replica.get());
      replica.get().tell(new ShardReplica.FollowerFetch(followerBroker, entry, outbox.sessionId(), link));
    } else {
      outbox.onResult(outbox.sessionId(), ReplicaFetchResult.newBuilder().setShard(entry.getShard())
          .setFetchId(entry.getFetchId()).setFetchOffset(entry.getFetchOffset()).setLeaderEpoch(-1)
          .setError(FetchError.FETCH_NOT_LEADER).build());
    }
  }

  private Behavior<Command> onCheckExpiry() {
    long ended = outbox.sessionId();
    if (outbox.expire(System.nanoTime())) {
      link.sessionId = Long.MIN_VALUE;
      timers.cancel(MAX_WAIT);
      getContext().getLog().info("broker {}: fetch session {} of follower broker {} ended: no request for {}; its {} "
          + "shard leader(s) here may drop it from their in-sync sets", selfId, ended, followerBroker,
          settings.isrMaxLagTime(), routedTo.size());
      for (ActorRef<ShardReplica.Command> replica : routedTo) {
        replica.tell(new ShardReplica.FollowerSessionEnded(followerBroker, ended));
      }
      routedTo.clear();
    }
    return this;
  }

  private void queueAnswer() {
    if (!answerQueued) {
      answerQueued = true;
      getContext().getSelf().tell(Answer.INSTANCE);
    }
  }

  private void send(FetchSessionAnswer answer) {
    ReplicationTransport link = transport.get();
    if (link != null) {
      link.send(followerBroker, ReplicationFrame.newBuilder().setSessionAnswer(answer).build()); // lost: it restarts
    }
  }
}
