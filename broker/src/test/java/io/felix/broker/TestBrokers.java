package io.felix.broker;

import com.typesafe.config.Config;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.ProducerIdSource;
import io.felix.broker.node.DataPlane;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * Brokers for scenario tests: each a real ActorSystem (cluster provider, Artery on 127.0.0.1, port 0) with a
 * {@link DataPlane} on its own data directory, joined into one cluster programmatically. Assignments and fences
 * reach the other brokers' ReplicaDirectory over Artery (so they go through the protobuf serializer).
 */
public final class TestBrokers implements AutoCloseable {
  private final Path root;
  private final String extraConfig;
  private final Map<Integer, ActorSystem<?>> systems = new TreeMap<>();
  private final Map<Integer, DataPlane> planes = new TreeMap<>();
  private final Map<Integer, BrokerEndpoint> endpoints = new TreeMap<>();
  private long version;
  private final AtomicLong producerIds = new AtomicLong();

  public TestBrokers(Path root, int count, String extraConfig) {
    this.root = root;
    this.extraConfig = extraConfig;
    for (int id = 0; id < count; id++) {
      start(id);
    }
  }

  /** Starts (or restarts, on the same data directory) broker {@code id}. */
  public void start(int id) {
    Config config = DataPlane.localConfig(id, root.resolve("broker-" + id), extraConfig);
    DataPlane plane = DataPlane.startInOwnSystem(config);
    plane.useProducerIds(ProducerIdSource.sharedCounter(producerIds));
    ActorSystem<?> system = plane.system();
    ActorSystem<?> seed = systems.values().stream().findFirst().orElse(system);
    Cluster.get(system).manager().tell(Join.create(Cluster.get(seed).selfMember().address()));
    systems.put(id, system);
    planes.put(id, plane);
    endpoints.put(id, plane.endpoint());
  }

  /** Stops broker {@code id}: its data plane, then its ActorSystem (the data directory stays). */
  public void stop(int id) {
    planes.remove(id);
    ActorSystem<?> system = systems.remove(id);
    system.terminate(); // the guardian's replica directory stops every replica, closing its log
    try {
      system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("broker " + id + " did not stop", e);
    }
  }

  /** Broker {@code id}'s ActorSystem (to watch its actors from a test). */
  public ActorSystem<?> system(int id) {
    return systems.get(id);
  }

  public DataPlane plane(int id) {
    return planes.get(id);
  }

  public BrokerEndpoint endpoint(int id) {
    return endpoints.get(id);
  }

  public String clientAddress(int id) {
    return endpoints.get(id).clientAddress();
  }

  public Path dataDir(int id) {
    return root.resolve("broker-" + id);
  }

  /** A table (next version) with the current endpoints of every broker ever started. */
  public AssignmentTable table(Map<String, Integer> streams, List<ShardAssignment> shards) {
    Map<ShardId, ShardAssignment> byId = new HashMap<>();
    shards.forEach(s -> byId.put(s.id(), s));
    return new AssignmentTable(++version, endpoints, streams, new TreeMap<>(byId));
  }

  /** Sends the table to every running broker's directory, over Artery from the first running broker. */
  public void apply(AssignmentTable table) {
    for (int id : planes.keySet()) {
      remoteDirectory(id).tell(new ReplicaDirectory.ApplyAssignments(table));
    }
  }

  /** Sends the table to broker {@code id} alone (the others keep theirs, as when a push is lost). */
  public void applyTo(int id, AssignmentTable table) {
    remoteDirectory(id).tell(new ReplicaDirectory.ApplyAssignments(table));
  }

  public ReplicaStatus describe(int id, ShardId shard) {
    return ask(id, r -> new ReplicaDirectory.DescribeReplica(shard, r));
  }

  public ReplicaStatus fence(int id, ShardId shard, long newEpoch) {
    return ask(id, r -> new ReplicaDirectory.FenceShard(shard, newEpoch, r));
  }

  private ReplicaStatus ask(int id, org.apache.pekko.japi.function.Function<ActorRef<ReplicaStatus>,
      ReplicaDirectory.Command> message) {
    ActorSystem<?> from = sender();
    try {
      return AskPattern.ask(remoteDirectory(id), message::apply, Duration.ofSeconds(10), from.scheduler())
          .toCompletableFuture().get(15, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("no status from broker " + id, e);
    }
  }

  /** Broker {@code id}'s directory as seen from the first running broker: a remote ref unless it is that broker. */
  private ActorRef<ReplicaDirectory.Command> remoteDirectory(int id) {
    String path = ActorRefResolver.get(systems.get(id)).toSerializationFormat(planes.get(id).directory());
    return ActorRefResolver.get(sender()).resolveActorRef(path);
  }

  private ActorSystem<?> sender() {
    return systems.values().iterator().next();
  }

  /** {@link BrokerCluster#await}, with the arguments in the order these tests have always used. */
  public static void await(String what, Duration timeout, BooleanSupplier condition) {
    BrokerCluster.await(timeout, what, condition);
  }

  public List<Integer> running() {
    return new ArrayList<>(planes.keySet());
  }

  @Override
  public void close() {
    List<Integer> ids = new ArrayList<>(planes.keySet());
    java.util.Collections.reverse(ids); // youngest first: stopping several at once right after a hand-over stalls
    for (int id : ids) {
      stop(id);
    }
  }
}
