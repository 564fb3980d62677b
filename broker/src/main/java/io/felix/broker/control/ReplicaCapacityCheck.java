package io.felix.broker.control;

import io.felix.broker.control.ControlState.BrokerRecord;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Whether new shards fit the brokers they would be placed on: a broker says how many replicas it can host (its
 * {@code replica_capacity}, from its open-file limit and heap, or {@code felix.control.max-replicas-per-broker}),
 * and a stream whose replicas would take any broker past it is refused at creation, with the numbers, rather than
 * accepted and then run out of file descriptors or memory. A broker that did not say (capacity 0) is not limited here.
 */
final class ReplicaCapacityCheck {

  private ReplicaCapacityCheck() {}

  /** Why {@code placed} does not fit, naming the first broker it would overfill; empty when it fits. */
  static Optional<String> refusal(ControlState state, List<ShardPlaced> placed) {
    Map<Integer, Long> adding = new HashMap<>();
    placed.forEach(p -> p.replicas().forEach(b -> adding.merge(b, 1L, Long::sum)));
    for (Map.Entry<Integer, Long> add : new java.util.TreeMap<>(adding).entrySet()) {
      BrokerRecord broker = state.brokers().get(add.getKey());
      if (broker == null || broker.replicaCapacity() <= 0) {
        continue;
      }
      long hosted = state.replicasOn(broker.id());
      if (hosted + add.getValue() > broker.replicaCapacity()) {
        return Optional.of(placed.size() + " new shards would put " + add.getValue() + " replicas on broker "
            + broker.id() + ", which hosts " + hosted + " of the " + broker.replicaCapacity() + " replicas it can hold"
            + " (felix.control.max-replicas-per-broker, derived from its open-file limit and heap unless set): "
            + "raise the broker's limits, add brokers, or create fewer shards");
      }
    }
    return Optional.empty();
  }
}
