package io.felix.broker.group;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.shard.ReplicaRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * The group manager of the broker running in an ActorSystem (a Pekko extension, one per ActorSystem, so brokers
 * sharing a JVM in tests stay apart), for the admin API's /v1/groups routes.
 */
public final class LocalGroups implements Extension {
  private static final ExtensionId<LocalGroups> ID = new ExtensionId<>() {
    @Override
    public LocalGroups createExtension(ActorSystem<?> system) {
      return new LocalGroups();
    }
  };

  private volatile ActorRef<GroupManager.Command> manager;
  private volatile ReplicaRegistry registry;

  public static LocalGroups of(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** Called once by the broker's guardian when it has started the manager. */
  public void bind(ActorRef<GroupManager.Command> manager, ReplicaRegistry registry) {
    this.manager = manager;
    this.registry = registry;
  }

  public int brokerId() {
    return registry == null ? -1 : registry.brokerId();
  }

  public AssignmentTable table() {
    return registry == null ? AssignmentTable.EMPTY : registry.table();
  }

  /** The groups this broker coordinates now (none before the manager is bound). */
  public CompletionStage<List<GroupView>> describeAll() {
    if (manager == null) {
      return CompletableFuture.completedFuture(List.of());
    }
    CompletableFuture<List<GroupView>> reply = new CompletableFuture<>();
    manager.tell(new GroupManager.DescribeAll(reply));
    return reply;
  }
}
