package io.felix.broker.control;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.NotServingReason;
import io.felix.broker.shard.NotServingSink;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;

/**
 * One per broker: gathers its replicas' reports that they are assigned to lead but do not (each replica repeats its
 * own every report interval) and sends them to the placement singleton as one
 * {@link PlacementController.LeadersNotServing} per {@code batchInterval}, the latest report per shard. So a broker
 * whose thousands of replicas refuse at once (a restart) costs the singleton one message, not thousands, and its
 * inbox stays bounded by the number of brokers.
 */
public final class NotServingReports extends AbstractBehavior<NotServingReports.Command> {

  /** A report is under 100 bytes on the wire: a message stays far below one Artery frame. */
  static final int MAX_REPORTS_PER_MESSAGE = 5_000;

  public sealed interface Command {}

  /** One replica's report (local only: the sink the broker's replicas call). */
  private record Reported(PlacementController.NotServing report) implements Command {}

  private enum Send implements Command { INSTANCE }

  private final int brokerId;
  private final ActorRef<PlacementController.Command> singleton;
  private final Map<ShardId, PlacementController.NotServing> pending = new LinkedHashMap<>();

  public static Behavior<Command> create(int brokerId, ActorRef<PlacementController.Command> singleton,
      Duration batchInterval) {
    return Behaviors.setup(context -> Behaviors.withTimers(timers -> {
      timers.startTimerWithFixedDelay(Send.INSTANCE, batchInterval);
      return new NotServingReports(context, brokerId, singleton);
    }));
  }

  /** The sink the broker's replicas report to. */
  public static NotServingSink sink(ActorRef<Command> reports) {
    return (ShardId shard, int brokerId, long epoch, NotServingReason reason) ->
        reports.tell(new Reported(new PlacementController.NotServing(shard, epoch, reason)));
  }

  private NotServingReports(ActorContext<Command> context, int brokerId,
      ActorRef<PlacementController.Command> singleton) {
    super(context);
    this.brokerId = brokerId;
    this.singleton = singleton;
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Reported.class, r -> {
          pending.put(r.report().shard(), r.report());
          return this;
        })
        .onMessageEquals(Send.INSTANCE, this::send)
        .build();
  }

  private Behavior<Command> send() {
    List<PlacementController.NotServing> reports = new ArrayList<>(pending.values());
    pending.clear();
    for (int from = 0; from < reports.size(); from += MAX_REPORTS_PER_MESSAGE) {
      singleton.tell(new PlacementController.LeadersNotServing(brokerId,
          reports.subList(from, Math.min(reports.size(), from + MAX_REPORTS_PER_MESSAGE))));
    }
    return this;
  }
}
