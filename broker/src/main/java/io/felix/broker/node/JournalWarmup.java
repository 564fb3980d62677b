package io.felix.broker.node;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * Recovers an empty persistence id of its own once, at broker start, and stops: it writes nothing. It makes every
 * broker start the journal and snapshot plugins, open the journal's connection pool and load and run their code
 * before it may have to host the placement singleton. Measured with {@code bench failover}: a new singleton on a
 * broker whose plugins had never run took 5-14 s to recover (an empty journal too) on the loaded 2-core machine,
 * almost all of it starting the plugins; with them warm, recovery is a few queries.
 */
final class JournalWarmup extends EventSourcedBehavior<JournalWarmup.Done, JournalWarmup.Done, JournalWarmup.Done> {

  /** Command, event and state at once: nothing is ever persisted. */
  enum Done { INSTANCE }

  private final ActorContext<Done> context;
  private final long startedNanos = System.nanoTime();

  static Behavior<Done> create(int brokerId) {
    return Behaviors.setup(context -> new JournalWarmup(context, brokerId));
  }

  private JournalWarmup(ActorContext<Done> context, int brokerId) {
    super(PersistenceId.ofUniqueId("journal-warmup-broker-" + brokerId));
    this.context = context;
  }

  @Override
  public Done emptyState() {
    return Done.INSTANCE;
  }

  @Override
  public CommandHandler<Done, Done, Done> commandHandler() {
    return newCommandHandlerBuilder().forAnyState().onAnyCommand(command -> Effect().stop());
  }

  @Override
  public EventHandler<Done, Done> eventHandler() {
    return newEventHandlerBuilder().forAnyState().onAnyEvent((state, event) -> state);
  }

  @Override
  public SignalHandler<Done> signalHandler() {
    return newSignalHandlerBuilder()
        .onSignal(RecoveryCompleted.class, (state, signal) -> {
          context.getLog().info("The placement journal is ready on this broker ({} ms to start its plugins and"
              + " recover an empty id)", (System.nanoTime() - startedNanos) / 1_000_000);
          context.getSelf().tell(Done.INSTANCE);
        })
        .onSignal(RecoveryFailed.class, (state, signal) -> context.getLog().info("The placement journal could not be"
            + " warmed up at start ({}); a singleton started here opens it then", signal.getFailure().getMessage()))
        .build();
  }
}
