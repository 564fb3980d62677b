package io.felix.broker.shard;

import io.felix.broker.log.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * A replica while a change of its {@code replica.state} (a promise, the end of its recovery) is written and fsynced
 * on Pekko's blocking-IO dispatcher: every message waits in the replica's stash, and once the state is stored the
 * replica goes on with what it was about to do (answer a fence, follow or lead at the promised epoch, vouch for the
 * log it recovered), then handles the waiting messages in the order they came. A client's produce does not wait: it
 * is answered NOT_LEADER at once ({@link ShardReplica#refuseProduceWhileBusy}), since a replica storing its state is
 * taking a role, ending a provisional lead, or being fenced, and takes no append before that is stored. Nothing acts on the new state before
 * it is durable: {@link ReplicaContext} takes it only when the write has completed.
 *
 * <p>Why off the actor's thread: a write is two fsyncs (the file and its directory), and a failover round or a new
 * stream changes the state of thousands of replicas at once. On the replica dispatcher, one thread per core, those
 * fsyncs would run one after another and hold every other replica of the broker (measured 2026-12-06: the fsyncs
 * of a 10,000-shard creation were most of the replica dispatcher's time). On the blocking-IO dispatcher they run many
 * at a time, and the file system commits concurrent fsyncs together.
 *
 * <p>One write at a time per replica (the next change starts after this one is stored), so the file never goes back
 * to an older state. A write that fails fails the replica by default (its directory starts it again, and it reads
 * the state that was stored); a caller may handle the failure instead ({@link FailedReplica} stays failed).
 */
final class StoringReplica extends AbstractBehavior<ShardReplica.Command> {

  /** The write completed ({@code failure} null) or failed. */
  record StateStored(String failure) implements ShardReplica.Command {}

  private final ReplicaContext ctx;
  private final ReplicaState next;
  private final AbstractBehavior<ShardReplica.Command> interrupted;
  private final Supplier<Behavior<ShardReplica.Command>> then;
  private final Function<String, Behavior<ShardReplica.Command>> onFailure;

  private StoringReplica(ReplicaContext ctx, ReplicaState next, AbstractBehavior<ShardReplica.Command> interrupted,
      Supplier<Behavior<ShardReplica.Command>> then, Function<String, Behavior<ShardReplica.Command>> onFailure) {
    super(ctx.actor);
    this.ctx = ctx;
    this.next = next;
    this.interrupted = interrupted;
    this.then = then;
    this.onFailure = onFailure;
    CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
      try {
        ctx.writeState(next);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, ctx.actor.getSystem().dispatchers().lookup(DispatcherSelector.blocking()));
    ctx.actor.pipeToSelf(write, (done, failure) -> new StateStored(failure == null ? null
        : ShardReplica.causeOf(failure).getMessage()));
  }

  /**
   * Writes {@code next}, then continues with {@code then}; a failed write continues with {@code onFailure} given its
   * cause ({@link #failTheActor} by default).
   *
   * @param interrupted the role the replica is in (null while it takes one): it handles the stop if the broker stops
   *     during the write (a leader fails its waiting produces)
   */
  static Behavior<ShardReplica.Command> store(ReplicaContext ctx, ReplicaState next,
      AbstractBehavior<ShardReplica.Command> interrupted, Supplier<Behavior<ShardReplica.Command>> then,
      Function<String, Behavior<ShardReplica.Command>> onFailure) {
    return new StoringReplica(ctx, next, interrupted, then, onFailure);
  }

  /** A failed write fails the actor: nothing may act on a state that was not stored. */
  static Function<String, Behavior<ShardReplica.Command>> failTheActor(ReplicaContext ctx) {
    return failure -> {
      throw new UncheckedIOException(new IOException("replica " + ctx.id + " cannot store its state in "
          + ctx.statePath() + ": " + failure));
    };
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(StateStored.class, this::onStored)
        .onMessage(ShardReplica.ClientProduce.class, p -> {
          ShardReplica.refuseProduceWhileBusy(p, ctx.id, ctx.registry);
          return this;
        })
        .onMessage(ShardReplica.Command.class, command -> {
          ctx.wiring.stash().stash(command);
          return this;
        })
        .onSignal(PostStop.class, signal -> {
          if (interrupted != null) {
            interrupted.receiveSignal(ctx.actor, signal);
          } else {
            ShardReplica.onPostStop(ctx, signal);
          }
          return this;
        })
        .build();
  }

  private Behavior<ShardReplica.Command> onStored(StateStored stored) {
    if (stored.failure() != null) {
      return ctx.wiring.stash().unstashAll(onFailure.apply(stored.failure()));
    }
    ctx.stateStored(next);
    return ctx.wiring.stash().unstashAll(then.get());
  }
}
