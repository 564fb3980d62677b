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

/**
 * One per broker: hands producer ids to the idempotent producers that ask this broker (InitProducerId), out of
 * blocks of {@value ProducerIdBlock#SIZE} the placement singleton allocates and persists. Requests that find the
 * block used up wait for the next one; if the singleton does not answer within the timeout they fail (the client
 * asks again). The unused rest of a block is lost when the broker stops: ids are plentiful, reuse is not allowed.
 */
public final class ProducerIdIssuer extends AbstractBehavior<ProducerIdIssuer.Command> {
  public sealed interface Command {}

  /** A producer wants an id. */
  public record Issue(CompletableFuture<Long> reply) implements Command {}

  private record BlockArrived(ProducerIdBlock block, Throwable failure) implements Command {}

  private final int brokerId;
  private final ActorRef<PlacementController.Command> singleton;
  private final Duration askTimeout;
  private final ArrayDeque<CompletableFuture<Long>> waiting = new ArrayDeque<>();
  private long next;
  private long end;
  private boolean asking;

  private ProducerIdIssuer(ActorContext<Command> context, int brokerId,
      ActorRef<PlacementController.Command> singleton, Duration askTimeout) {
    super(context);
    this.brokerId = brokerId;
    this.singleton = singleton;
    this.askTimeout = askTimeout;
  }

  public static Behavior<Command> create(int brokerId, ActorRef<PlacementController.Command> singleton,
      Duration askTimeout) {
    return Behaviors.setup(context -> new ProducerIdIssuer(context, brokerId, singleton, askTimeout));
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
      getContext().getLog().warn("broker {}: no block of producer ids from the placement singleton within {} ({});"
          + " {} InitProducerId request(s) fail and will be retried by their clients", brokerId, askTimeout,
          arrived.failure().getMessage(), waiting.size());
      IllegalStateException error = new IllegalStateException(
          "the placement singleton did not allocate producer ids in time");
      waiting.forEach(w -> w.completeExceptionally(error));
      waiting.clear();
      return this;
    }
    next = arrived.block().firstId();
    end = arrived.block().endId();
    getContext().getLog().info("broker {}: hands out producer ids [{}, {})", brokerId, next, end);
    serveWaiting();
    return this;
  }

  private void serveWaiting() {
    while (!waiting.isEmpty() && next < end) {
      waiting.poll().complete(next++);
    }
    if (!waiting.isEmpty() && !asking) {
      asking = true;
      getContext().ask(ProducerIdBlock.class, singleton,
          askTimeout, replyTo -> new PlacementController.AllocateProducerIds(brokerId, replyTo),
          BlockArrived::new);
    }
  }
}
