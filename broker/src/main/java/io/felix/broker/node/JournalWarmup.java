package io.felix.broker.node;

import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;
import org.apache.pekko.cluster.typed.Unsubscribe;
import org.apache.pekko.persistence.typed.PersistenceId;
import org.apache.pekko.persistence.typed.RecoveryCompleted;
import org.apache.pekko.persistence.typed.RecoveryFailed;
import org.apache.pekko.persistence.typed.javadsl.CommandHandler;
import org.apache.pekko.persistence.typed.javadsl.EventHandler;
import org.apache.pekko.persistence.typed.javadsl.EventSourcedBehavior;
import org.apache.pekko.persistence.typed.javadsl.SignalHandler;

/**
 * Recovers an empty persistence id of its own once and stops: it writes nothing. It makes the broker start the
 * journal and snapshot plugins, open the journal's connection pool and load and run their code before it has to
 * host the placement singleton. Measured with {@code bench failover}: a new singleton on a broker whose plugins had
 * never run took 5-14 s to recover (an empty journal too) on the loaded 2-core machine, almost all of it starting
 * the plugins; with them warm, recovery is a few queries.
 *
 * <p>It waits until this broker is one of the two oldest up members: the oldest hosts the singleton, the second
 * takes it over when the oldest is lost. A broker just (re)started is the youngest and starting the plugins costs it
 * CPU seconds while it joins and must answer heartbeats; it warms up only once it moves up the line.
 */
final class JournalWarmup extends EventSourcedBehavior<JournalWarmup.Done, JournalWarmup.Done, JournalWarmup.Done> {

  /** Command, event and state at once: nothing is ever persisted. */
  enum Done { INSTANCE }

  private final ActorContext<Done> context;
  private final long startedNanos = System.nanoTime();

  static Behavior<Done> create(int brokerId) {
    return Behaviors.<Object>setup(context -> {
      Cluster cluster = Cluster.get(context.getSystem());
      cluster.subscriptions().tell(Subscribe.create(context.getSelf().narrow(), ClusterEvent.MemberEvent.class));
      return Behaviors.receive(Object.class).onAnyMessage(event -> {
        if (!nextInLine(cluster)) {
          return Behaviors.same();
        }
        cluster.subscriptions().tell(new Unsubscribe<>(context.getSelf()));
        return Behaviors.<Done>setup(warming -> new JournalWarmup(warming, brokerId)).unsafeCast();
      }).build();
    }).unsafeCast();
  }

  /** Whether this broker is up and at most one up member is older: it hosts the singleton or is next to. */
  private static boolean nextInLine(Cluster cluster) {
    Member self = cluster.selfMember();
    if (!self.status().equals(MemberStatus.up())) {
      return false;
    }
    long older = 0;
    for (Member m : cluster.state().getMembers()) {
      if (m.status().equals(MemberStatus.up()) && !m.equals(self) && m.isOlderThan(self)) {
        older++;
      }
    }
    return older <= 1;
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
