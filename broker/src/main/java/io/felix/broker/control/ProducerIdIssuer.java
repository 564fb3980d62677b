package io.felix.broker.control;

import io.felix.broker.client.ProducerIdSource;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One per broker: hands producer ids to the idempotent producers that ask this broker (InitProducerId), out of
 * blocks of {@value ProducerIdBlock#SIZE} the placement singleton allocates and persists. It holds the next block
 * before it needs it: it asks for one as soon as it starts, and for a spare once half of the current one is handed
 * out, so a producer is answered without waiting for the singleton. That wait was the one a producer met after a
 * whole-cluster restart of 10,000 shards, when the singleton was busiest (2026-12-07: InitProducerId failed after 5 s
 * on every broker while the singleton's failover rounds ran). A request that finds no id waits for the block asked
 * for; if the singleton does not answer within the timeout it fails (the client asks again), and the issuer asks
 * again after {@link #RETRY_AFTER}. The unused rest of a block is lost when the broker stops: ids are plentiful, reuse
 * is not allowed.
 */
public final class ProducerIdIssuer extends AbstractBehavior<ProducerIdIssuer.Command> {
  public sealed interface Command {}

  /** A producer wants an id. */
  public record Issue(CompletableFuture<Long> reply) implements Command {}

  private record BlockArrived(ProducerIdBlock block, Throwable failure) implements Command {}

  private enum AskAgain implements Command { INSTANCE }

  /** How long after an unanswered ask the issuer asks again, when no producer is waiting to make it ask sooner. */
  static final Duration RETRY_AFTER = Duration.ofSeconds(1);

  private final int brokerId;
  private final ActorRef<PlacementController.Command> singleton;
  private final Duration askTimeout;
  private final TimerScheduler<Command> timers;
  private final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();
  private long next;
  private long end;
  /** The block to use once the current one is handed out; null until it arrives. */
  private ProducerIdBlock spare;
  private boolean asking;

  private ProducerIdIssuer(ActorContext<Command> context, TimerScheduler<Command> timers, int brokerId,
      ActorRef<PlacementController.Command> singleton, Duration askTimeout) {
    super(context);
    this.timers = timers;
    this.brokerId = brokerId;
    this.singleton = singleton;
    this.askTimeout = askTimeout;
  }

  public static Behavior<Command> create(int brokerId, ActorRef<PlacementController.Command> singleton,
      Duration askTimeout) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      ProducerIdIssuer issuer = new ProducerIdIssuer(context, timers, brokerId, singleton, askTimeout);
      issuer.askIfShort();
      return issuer;
    }));
  }

  /** The issuer as the client listener sees it. */
  public static ProducerIdSource source(ActorRef<Command> issuer) {
    return () -> {
      CompletableFuture<Long> reply = new CompletableFuture<>();
      issuer.tell(new Issue(reply));
      return reply;
    };
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Issue.class, this::onIssue)
        .onMessage(BlockArrived.class, this::onBlockArrived)
        .onMessageEquals(AskAgain.INSTANCE, () -> {
          askIfShort();
          return this;
        })
        .build();
  }

  private Behavior<Command> onIssue(Issue issue) {
    waiting.add(issue.reply());
    serveWaiting();
    return this;
  }

  private Behavior<Command> onBlockArrived(BlockArrived arrived) {
    asking = false;
    if (arrived.failure() != null) {
      if (!waiting.isEmpty()) {
        getContext().getLog().warn("broker {}: no block of producer ids from the placement singleton within {} ({});"
            + " {} InitProducerId request(s) fail and will be retried by their clients", brokerId, askTimeout,
            arrived.failure().getMessage(), waiting.size());
        IllegalStateException error = new IllegalStateException(
            "the placement singleton did not allocate producer ids in time");
        waiting.forEach(w -> w.completeExceptionally(error));
        waiting.clear();
      } else {
        getContext().getLog().debug("broker {}: no block of producer ids from the placement singleton within {};"
            + " asking again in {}", brokerId, askTimeout, RETRY_AFTER);
      }
      timers.startSingleTimer(AskAgain.INSTANCE, RETRY_AFTER);
      return this;
    }
    spare = arrived.block();
    getContext().getLog().info("broker {}: holds producer ids [{}, {}) for its next producers", brokerId,
        spare.firstId(), spare.endId());
    serveWaiting();
    return this;
  }

  private void serveWaiting() {
    while (!waiting.isEmpty()) {
      if (next == end && spare != null) {
        next = spare.firstId();
        end = spare.endId();
        spare = null;
      }
      if (next == end) {
        break;
      }
      waiting.poll().complete(next++);
    }
    askIfShort();
  }

  /** Asks for the spare block once less than half of the current one is left (at once when there is none). */
  private void askIfShort() {
    if (!asking && spare == null && end - next < ProducerIdBlock.SIZE / 2) {
      asking = true;
      getContext().ask(ProducerIdBlock.class, singleton,
          askTimeout, replyTo -> new PlacementController.AllocateProducerIds(brokerId, replyTo),
          BlockArrived::new);
    }
  }
}
