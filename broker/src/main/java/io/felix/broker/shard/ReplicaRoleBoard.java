package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.wire.ControlMessage;
import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * Answers, for many replicas of this broker at once, their role, epoch and in-sync set as the replicas published them
 * ({@link ReplicaRegistry#published}), without a message to any replica and without waiting behind the
 * {@link ReplicaDirectory}. What the admin API's lists need to tell which shards are under-replicated. Asking the
 * directory meant one message to each of thousands of replicas, queued behind the directory's own work: while a
 * broker started the 10,000 replicas of a new stream (one message that takes seconds on a loaded machine, then
 * 10,000 "opened" reports), a list waited seconds for it. A question about offsets (a stream's detail, a move, a
 * failover) still asks the replicas through the directory.
 *
 * <p>One per broker, registered with the Receptionist under {@link #SERVICE_KEY}. It keeps no state: everything it
 * reads is the registry's.
 */
public final class ReplicaRoleBoard extends AbstractBehavior<ReplicaRoleBoard.Command> {

  public static final ServiceKey<Command> SERVICE_KEY = ServiceKey.create(Command.class, "felix-replica-roles");

  public sealed interface Command {}

  /**
   * The published status of this broker's replica of each of {@code shards}, answered at once, every shard included.
   * {@link ReplicaRole#STARTING} for a replica that has not taken up its assignment in this broker's table yet: not
   * started yet (the directory starts thousands one after another), opening its log, storing the promise of its
   * first role, or not yet through the assignment's epoch (its status is older than the appointment; a FAILED
   * replica's status stands whatever the epoch). What it says
   * then is about an assignment it has not seen, as a directory's answer never is: the directory's question waits
   * in the replica's mailbox behind the assignment. {@link ReplicaStatus#notHosted} for a shard the table does not
   * place here.
   *
   * @param onlyNotLeading answer only the replicas that do not lead (every asked shard left out leads): the
   *     placement singleton's leader check asks every leader every placement interval, and at 10,000 shards the
   *     statuses of the leaders that lead were serialized, sent and read every 3 s to say nothing new (the
   *     singleton's host idled at 0.044-0.052 cores per 10,000 replicas with them, 0.031-0.035 without)
   */
  public record DescribeRoles(long requestId, List<ShardId> shards, boolean onlyNotLeading,
      ActorRef<ReplicaStatuses> replyTo)
      implements Command, ControlMessage {
    public DescribeRoles {
      shards = List.copyOf(shards);
    }
  }

  private final ReplicaRegistry registry;

  private ReplicaRoleBoard(ActorContext<Command> context, ReplicaRegistry registry) {
    super(context);
    this.registry = registry;
    context.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, context.getSelf()));
  }

  public static Behavior<Command> create(ReplicaRegistry registry) {
    return Behaviors.setup(context -> new ReplicaRoleBoard(context, registry));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder().onMessage(DescribeRoles.class, this::onDescribeRoles).build();
  }

  private Behavior<Command> onDescribeRoles(DescribeRoles describe) {
    int brokerId = registry.brokerId();
    AssignmentTable table = registry.table();
    List<ReplicaStatus> statuses = new ArrayList<>(describe.shards().size());
    for (ShardId id : describe.shards()) {
      ReplicaStatus status = roleOf(id, table.shards().get(id), brokerId);
      if (!describe.onlyNotLeading() || status.role() != ReplicaRole.LEADER) {
        statuses.add(status);
      }
    }
    describe.replyTo().tell(new ReplicaStatuses(describe.requestId(), brokerId, table.version(), statuses));
    return this;
  }

  private ReplicaStatus roleOf(ShardId id, ShardAssignment assigned, int brokerId) {
    if (assigned == null || !assigned.hostedBy(brokerId)) {
      return ReplicaStatus.notHosted(id, brokerId);
    }
    return registry.published(id)
        .filter(status -> status.failed() || status.promisedEpoch() >= assigned.leaderEpoch())
        .orElseGet(() -> ReplicaStatus.starting(id, brokerId));
  }
}
