package io.felix.broker.replication;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ShardReplica;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicationFrame;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * This broker's fetcher from one leader broker: it keeps the fetch session ({@link FetchSession}) for every shard
 * this broker follows there, sends its requests over the replication connection and hands each shard answer to its
 * follower replica. One per peer broker, whether it follows anything there or not: its requests, which a live broker
 * answers within fetch-max-wait, are the evidence {@link io.felix.broker.transport.PeerSuspicion} works from.
 *
 * <p>Its one timer runs every {@link #TICK} whatever the number of shards: retries and the fetch-timeout.
 */
final class LeaderFetcher extends AbstractBehavior<LeaderFetcher.Command> {

  sealed interface Command permits Follow, Unfollow, AnswerArrived, Send, Tick {}

  /** A follower replica's position (see {@link io.felix.broker.shard.LeaderFetchers#follow}). */
  record Follow(ShardId id, ActorRef<ShardReplica.Command> replica, ReplicaFetch position) implements Command {}

  record Unfollow(ShardId id, ActorRef<ShardReplica.Command> replica) implements Command {}

  /** The leader broker's answer to one of this fetcher's requests. */
  record AnswerArrived(FetchSessionAnswer answer) implements Command {}

  /** Sends what may go; queued behind the messages already waiting, so that their positions go in one request. */
  private enum Send implements Command { INSTANCE }

  private enum Tick implements Command { INSTANCE }

  /** How often retries and the fetch timeout are looked at. */
  static final Duration TICK = Duration.ofMillis(50);

  private final int selfId;
  private final int leaderBroker;
  private final Supplier<ReplicationTransport> transport;
  private final FetchSession<ActorRef<ShardReplica.Command>> session;
  /** When the leader broker last answered, for follower reads (read by replicas on other threads). */
  private final AtomicLong lastAnswerNanos;
  private boolean sendQueued;
  /** A request the transport dropped (no connection): the session restarts once the connection is up. */
  private boolean lost;
  /** Restarts are said once until the session works again (a peer that stays down is not worth a line each). */
  private boolean quietRestarts;

  private LeaderFetcher(ActorContext<Command> context, int selfId, int leaderBroker,
      Supplier<ReplicationTransport> transport, ReplicationSettings settings, AtomicLong lastAnswerNanos) {
    super(context);
    this.selfId = selfId;
    this.leaderBroker = leaderBroker;
    this.transport = transport;
    this.lastAnswerNanos = lastAnswerNanos;
    // Session ids start apart for each start of the broker, so that a leader never takes a new session for an old.
    this.session = new FetchSession<>(System.currentTimeMillis() << 16, settings.fetchTimeout(),
        settings.maxFrameSize() / 2);
  }

  static Behavior<Command> create(int selfId, int leaderBroker, Supplier<ReplicationTransport> transport,
      ReplicationSettings settings, AtomicLong lastAnswerNanos) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Tick.INSTANCE, TICK);
      LeaderFetcher fetcher = new LeaderFetcher(context, selfId, leaderBroker, transport, settings, lastAnswerNanos);
      fetcher.queueSend();
      return fetcher;
    }));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Follow.class, f -> {
          session.follow(f.id(), f.replica(), f.position());
          queueSend();
          return this;
        })
        .onMessage(Unfollow.class, u -> {
          session.unfollow(u.id(), u.replica());
          return this;
        })
        .onMessage(AnswerArrived.class, this::onAnswer)
        .onMessageEquals(Send.INSTANCE, () -> {
          sendQueued = false;
          send();
          return this;
        })
        .onMessageEquals(Tick.INSTANCE, this::onTick)
        .build();
  }

  private Behavior<Command> onAnswer(AnswerArrived arrived) {
    long now = System.nanoTime();
    FetchSession.Outcome<ActorRef<ShardReplica.Command>> outcome = session.onAnswer(arrived.answer(), now);
    if (outcome instanceof FetchSession.Delivered<ActorRef<ShardReplica.Command>> delivered) {
      lastAnswerNanos.set(now);
      quietRestarts = false;
      for (FetchSession.Delivery<ActorRef<ShardReplica.Command>> d : delivered.deliveries()) {
        d.replica().tell(new ShardReplica.FetchResultArrived(leaderBroker, d.result()));
      }
    } else if (outcome instanceof FetchSession.Restart<ActorRef<ShardReplica.Command>> restart) {
      restart(restart.reason());
    }
    send();
    return this;
  }

  private Behavior<Command> onTick() {
    long now = System.nanoTime();
    Optional<String> timedOut = session.onTick(now);
    if (lost && transport.get() != null && transport.get().connected(leaderBroker)) {
      restart("the replication connection to broker " + leaderBroker + " was down");
    } else if (timedOut.isPresent() && !lost) {
      restart(timedOut.get());
    }
    send();
    return this;
  }

  private void restart(String reason) {
    session.restart();
    lost = false;
    String message = "broker {}: fetch session {} with leader broker {} started again with {} shard(s): {}";
    Object[] values = {selfId, session.sessionId(), leaderBroker, session.followed(), reason};
    if (quietRestarts) {
      getContext().getLog().debug(message, values);
    } else {
      getContext().getLog().info(message, values);
      quietRestarts = true;
    }
  }

  private void queueSend() {
    if (!sendQueued) {
      sendQueued = true;
      getContext().getSelf().tell(Send.INSTANCE);
    }
  }

  /** Sends every request that may go now (see {@link FetchSession#nextRequest}). */
  private void send() {
    if (lost) {
      return;
    }
    ReplicationTransport link = transport.get();
    long now = System.nanoTime();
    for (Optional<FetchSessionRequest> next = session.nextRequest(now); next.isPresent();
        next = session.nextRequest(now)) {
      FetchSessionRequest request = next.get();
      if (request.getSequence() == 0 && session.sessions() == 1) {
        getContext().getLog().info("broker {}: fetch session {} with leader broker {} started with {} shard(s)",
            selfId, request.getSessionId(), leaderBroker, session.followed());
      }
      if (link == null || !link.send(leaderBroker, ReplicationFrame.newBuilder().setSessionRequest(request).build())) {
        lost = true; // no connection, or its queue is full: the session starts again once it can
        return;
      }
    }
  }
}
