package io.felix.broker.control;

import io.felix.broker.control.PlacementEvent.FailoverDecided;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.ShardsPlaced;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;

/**
 * How a stored decision is logged: one INFO line per event, with counts for the events that carry thousands of
 * shards (each shard's part at DEBUG), so a storm of placements or promotions never floods the log.
 */
final class DecisionLog {

  private DecisionLog() {}

  static void log(Logger log, PlacementEvent event) {
    if (event instanceof StreamCreated e) {
      log.info("Decided: stream '{}' created with {} shards, replication factor {} ({} placed, leaders per broker {})",
          e.stream(), e.shards(), e.replicationFactor(), e.placed().size(), leadersPerBroker(e.placed()));
      e.placed().forEach(p -> log.debug("Decided {}", p));
    } else if (event instanceof ShardsPlaced e) {
      log.info("Decided: {} shards placed (leaders per broker {})", e.placed().size(), leadersPerBroker(e.placed()));
      e.placed().forEach(p -> log.debug("Decided {}", p));
    } else if (event instanceof ShardPlaced) {
      log.debug("Decided {}", event);
    } else if (event instanceof FailoverDecided e) {
      Map<Integer, Integer> to = new TreeMap<>();
      Map<Integer, Integer> from = new TreeMap<>();
      for (LeaderPromoted p : e.promoted()) {
        to.merge(p.leader(), 1, Integer::sum);
        from.merge(p.previousLeader(), 1, Integer::sum);
      }
      log.info("Decided failover: {} leaders promoted (from brokers {} to {}), {} moves aborted",
          e.promoted().size(), from, to, e.aborted().size());
      e.aborted().forEach(a -> log.info("Decided {}", a));
      e.promoted().forEach(p -> log.debug("Decided {}", p));
    } else {
      log.info("Decided {}", event);
    }
  }

  private static Map<Integer, Integer> leadersPerBroker(List<ShardPlaced> placed) {
    Map<Integer, Integer> leaders = new TreeMap<>();
    placed.forEach(p -> leaders.merge(p.leader(), 1, Integer::sum));
    return leaders;
  }
}
