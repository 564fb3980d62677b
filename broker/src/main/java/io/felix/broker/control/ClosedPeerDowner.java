package io.felix.broker.control;

import java.time.Duration;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.UniqueAddress;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Down;
import org.apache.pekko.remote.RemoteActorRefProvider;
import org.apache.pekko.remote.RemoteTransport;
import scala.Option;

/**
 * Checks every {@code felix.control.suspicion-check-interval} which members the data plane shows gone and downs
 * them (see {@link ClosedPeerDowning} for the rule and why it is safe).
 *
 * <p>Each downed incarnation is also quarantined on this broker. Pekko's leader removes a down member only once it
 * is unreachable or terminated, and a killed process is marked unreachable only by the failure detector (about
 * 3-4 s later); quarantine marks it terminated at once, so it is removed at the leader's next convergence and the
 * placement singleton it hosted starts elsewhere that much sooner. A down member never becomes up again (its
 * process must restart, as a new incarnation), so quarantining it only makes the removal the down decided happen
 * without waiting for the failure detector.
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
      RemoteTransport transport = ((RemoteActorRefProvider)
          ((ExtendedActorSystem) Adapter.toClassic(context.getSystem())).provider()).transport();
      return Behaviors.receive(Tick.class).onMessage(Tick.class, tick -> {
        Set<Integer> now = Set.copyOf(closed.get());
        for (UniqueAddress member : downing.check(BrokerLiveness.members(cluster.state()), now)) {
          context.getLog().info("Downing {}: its replication connection closed and new ones are refused (the process"
              + " is gone), and a majority of the up members still reach this broker", member.address());
          cluster.manager().tell(new Down(member.address()));
          transport.quarantine(member.address(), Option.apply((Object) member.longUid()),
              "downed: its replication connection closed and new ones are refused");
        }
        return Behaviors.same();
      }).build();
    }));
  }
}
