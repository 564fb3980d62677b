package io.felix.broker.control;

import io.felix.broker.assignment.BrokerRole;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * Reaches every broker's data plane {@link ReplicaDirectory} (found through the Receptionist) on behalf of the
 * placement singleton: fences and describes, each answer (or its failure, after {@code timeout}) delivered to
 * the singleton as {@link PlacementController.ReplicaAnswered}. A directory is matched to its broker id by the
 * cluster role of the member at its address.
 */
public final class DirectoryProbe implements ReplicaProbe {

  private final ActorContext<PlacementController.Command> context;
  private final Duration timeout;
  private Set<ActorRef<ReplicaDirectory.Command>> directories = Set.of();
  private final Map<Integer, ActorRef<ReplicaDirectory.Command>> byBroker = new HashMap<>();

  public DirectoryProbe(ActorContext<PlacementController.Command> context, ActorRef<Receptionist.Listing> listings,
      Duration timeout) {
    this.context = context;
    this.timeout = timeout;
    context.getSystem().receptionist().tell(Receptionist.subscribe(ReplicaDirectory.SERVICE_KEY, listings));
  }

  @Override
  public void listed(Receptionist.Listing listing) {
    if (listing.isForKey(ReplicaDirectory.SERVICE_KEY)) {
      directories = listing.getServiceInstances(ReplicaDirectory.SERVICE_KEY);
      byBroker.clear();
    }
  }

  @Override
  public boolean fence(int brokerId, ShardId shard, long epoch) {
    ActorRef<ReplicaDirectory.Command> directory = directoryOf(brokerId);
    if (directory == null) {
      return false;
    }
    context.ask(ReplicaStatus.class, directory, timeout,
        replyTo -> new ReplicaDirectory.FenceShard(shard, epoch, replyTo),
        (status, failure) -> new PlacementController.ReplicaAnswered(brokerId, shard, epoch, report(status)));
    return true;
  }

  @Override
  public boolean describe(int brokerId, ShardId shard) {
    ActorRef<ReplicaDirectory.Command> directory = directoryOf(brokerId);
    if (directory == null) {
      return false;
    }
    context.ask(ReplicaStatus.class, directory, timeout,
        replyTo -> new ReplicaDirectory.DescribeReplica(shard, replyTo),
        (status, failure) -> new PlacementController.ReplicaAnswered(brokerId, shard, 0, report(status)));
    return true;
  }

  private static ReplicaReport report(ReplicaStatus status) {
    return status == null ? null : new ReplicaReport(status.id(), status.brokerId(), status.hosted(), status.role(),
        status.lastEpoch(), status.logEndOffset(), status.commitOffset(), status.failed());
  }

  private ActorRef<ReplicaDirectory.Command> directoryOf(int brokerId) {
    ActorRef<ReplicaDirectory.Command> known = byBroker.get(brokerId);
    if (known != null) {
      return known;
    }
    Map<Integer, ActorRef<ReplicaDirectory.Command>> resolved = resolve(context.getSystem(), directories);
    byBroker.putAll(resolved);
    return resolved.get(brokerId);
  }

  /** Broker id of each directory, from the cluster role of the member at the directory's address. */
  public static Map<Integer, ActorRef<ReplicaDirectory.Command>> resolve(
      org.apache.pekko.actor.typed.ActorSystem<?> system, Set<ActorRef<ReplicaDirectory.Command>> directories) {
    Cluster cluster = Cluster.get(system);
    Map<Address, Integer> brokerAt = new HashMap<>();
    for (Member member : cluster.state().getMembers()) {
      BrokerRole.idOf(member.getRoles()).ifPresent(id -> brokerAt.put(member.address(), id));
    }
    Address self = cluster.selfMember().address();
    Map<Integer, ActorRef<ReplicaDirectory.Command>> out = new HashMap<>();
    for (ActorRef<ReplicaDirectory.Command> directory : directories) {
      Address address = directory.path().address();
      Integer id = brokerAt.get(address.hasGlobalScope() ? address : self);
      if (id != null) {
        out.put(id, directory);
      }
    }
    return out;
  }
}
