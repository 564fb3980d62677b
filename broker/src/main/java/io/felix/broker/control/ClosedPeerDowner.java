package io.felix.broker.control;

import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;

/**
 * Checks every {@code felix.control.suspicion-check-interval} which members the data plane shows gone and downs
 * them (see {@link ClosedPeerDowning} for the rule and why it is safe).
 */
public final class ClosedPeerDowner {

  /** The one message: the timer's. */
  public enum Tick { INSTANCE }

  private ClosedPeerDowner() {}

  /** @param closed the peers whose replication connection closed and stays refused (the transport's closedPeers) */
  public static Behavior<Tick> create(int brokerId, Supplier<? extends Set<Integer>> closed, Duration every) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Tick.INSTANCE, every);
      context.setLoggerName(ClosedPeerDowner.class);
      ClosedPeerDowning downing = new ClosedPeerDowning(brokerId);
      Cluster cluster = Cluster.get(context.getSystem());
      return Behaviors.receive(Tick.class).onMessage(Tick.class, tick -> {
        Set<Integer> now = Set.copyOf(closed.get());
        for (UniqueAddress member : downing.check(BrokerLiveness.members(cluster.state()), now)) {
          context.getLog().info("Downing {}: its replication connection closed and new ones are refused (the process"
              + " is gone), and a majority of the up members still reach this broker", member.address());
          cluster.manager().tell(new Down(member.address()));
        }
        return Behaviors.same();
      }).build();
    }));
  }
}
