package io.felix.broker.control;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.slf4j.Logger;

/**
 * Tells the placement singleton which peers this broker's replication connections suspect lost: at once when the
 * set changes (checked every {@code felix.control.suspicion-check-interval}), and again unchanged every
 * {@code suspicion-repeat-interval} (Artery delivers at most once; a singleton that just started learns it too).
 */
public final class PeerSuspicionReporter {

  /** The one message: the timer's. */
  public enum Tick { INSTANCE }

  private final int brokerId;
  private final Supplier<? extends Collection<Integer>> suspected;
  private final ActorRef<PlacementController.Command> singleton;
  private final int checksPerRepeat;
  private final Logger log;
  private List<Integer> lastSent;
  private int checksSinceSent;

  private PeerSuspicionReporter(int brokerId, Supplier<? extends Collection<Integer>> suspected,
      ActorRef<PlacementController.Command> singleton, ControlSettings settings, Logger log) {
    this.log = log;
    this.brokerId = brokerId;
    this.suspected = suspected;
    this.singleton = singleton;
    this.checksPerRepeat = (int) Math.max(1,
        settings.suspicionRepeatInterval().toMillis() / settings.suspicionCheckInterval().toMillis());
  }

  /** @param suspected the peers suspected now, in id order (the transport's {@code suspectedPeers}) */
  public static Behavior<Tick> create(int brokerId, Supplier<? extends Collection<Integer>> suspected,
      ActorRef<PlacementController.Command> singleton, ControlSettings settings) {
    Duration every = settings.suspicionCheckInterval();
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Tick.INSTANCE, every);
      PeerSuspicionReporter reporter =
          new PeerSuspicionReporter(brokerId, suspected, singleton, settings, context.getLog());
      return Behaviors.receive(Tick.class).onMessage(Tick.class, tick -> reporter.check()).build();
    }));
  }

  private Behavior<Tick> check() {
    List<Integer> now = List.copyOf(suspected.get());
    checksSinceSent++;
    boolean changed = !now.equals(lastSent);
    if (changed && !now.isEmpty()) {
      log.info("Replication connections suspect brokers {} lost (before: {})", now, lastSent == null ? "[]" : lastSent);
    } else if (changed && lastSent != null) {
      log.info("Replication connections no longer suspect any broker (before: {})", lastSent);
    }
    if (changed || checksSinceSent >= checksPerRepeat) {
      singleton.tell(new PlacementController.PeersSuspected(brokerId, now));
      lastSent = now;
      checksSinceSent = 0;
    }
    return Behaviors.same();
  }
}
