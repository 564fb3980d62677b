package io.felix.bench.cluster;

import com.typesafe.config.Config;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.DataPlane;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * What idle shards cost the data plane alone: three brokers' data planes in one JVM (ActorSystems on 127.0.0.1, no
 * placement singleton, no admin API), first with nothing to host, then with one table of {@code shards} shards
 * (replication factor 3, leaders spread evenly, epoch 1) applied directly, as the control plane would push it. Each
 * phase reads the JVM's CPU time over {@code seconds} after {@code settleSeconds} of quiet and prints it per broker
 * (a third of the JVM's), and the difference scaled to 10,000 replicas per broker. Before the idle phase it checks
 * that every shard's leader leads.
 *
 * <pre>
 * java -cp bench/target/felix-bench.jar io.felix.bench.cluster.IdleDataPlaneBenchmark \
 *     [shards=1500] [seconds=60] [settleSeconds=20]
 * </pre>
 * Each replica keeps three files open: three brokers of N shards need 9 N file descriptors in this one process
 * (the limit here is 20,000). Not a test: it asserts nothing and its figures depend on the machine's other load.
 */
public final class IdleDataPlaneBenchmark {
  private IdleDataPlaneBenchmark() {}

  public static void main(String[] args) throws Exception {
    int shards = arg(args, 0, 1500);
    int seconds = arg(args, 1, 60);
    int settle = arg(args, 2, 20);
    Path root = Files.createTempDirectory("felix-idle-data-plane");
    List<DataPlane> planes = new ArrayList<>();
    try {
      Map<Integer, BrokerEndpoint> endpoints = new TreeMap<>();
      for (int id = 0; id < 3; id++) {
        Config config = DataPlane.localConfig(id, root.resolve("broker-" + id), "pekko.loglevel = WARNING");
        DataPlane plane = DataPlane.startInOwnSystem(config);
        ActorSystem<?> system = plane.system();
        Cluster.get(system).manager().tell(Join.create(Cluster.get(planes.isEmpty() ? system
            : planes.get(0).system()).selfMember().address()));
        planes.add(plane);
        endpoints.put(id, plane.endpoint());
      }
      AssignmentTable empty = new AssignmentTable(1, endpoints, Map.of(), new TreeMap<>());
      planes.forEach(p -> p.directory().tell(new ReplicaDirectory.ApplyAssignments(empty)));
      Thread.sleep(settle * 1000L);
      double none = cores(seconds);
      System.out.printf("no shards: %.4f cores for 3 data planes%n", none);

      TreeMap<ShardId, ShardAssignment> assignments = new TreeMap<>();
      for (int s = 0; s < shards; s++) {
        ShardId id = new ShardId("idle", s);
        assignments.put(id, new ShardAssignment(id, List.of(0, 1, 2), List.of(), s % 3, 1));
      }
      AssignmentTable table = new AssignmentTable(2, endpoints, Map.of("idle", shards), assignments);
      long started = System.nanoTime();
      planes.forEach(p -> p.directory().tell(new ReplicaDirectory.ApplyAssignments(table)));
      int leading = awaitLeaders(planes, assignments, Duration.ofMinutes(5));
      System.out.printf("%,d of %,d shards led after %.1f s%n", leading, shards, (System.nanoTime() - started) / 1e9);
      Thread.sleep(settle * 1000L);
      System.out.printf("%,d of %,d shards have all three replicas in sync%n", fullyInSync(planes, assignments),
          shards);
      double idle = cores(seconds);
      System.out.printf("%,d idle shards: %.4f cores for 3 data planes%n", shards, idle);
      double perBroker = (idle - none) / 3;
      System.out.printf("per broker: %.4f cores with no shards, %.4f with %,d idle replicas, difference %.4f = %.4f "
          + "cores per 10,000 idle replicas%n", none / 3, idle / 3, shards, perBroker, perBroker * 10_000 / shards);
    } finally {
      for (int i = planes.size() - 1; i >= 0; i--) {
        planes.get(i).system().terminate();
        planes.get(i).system().getWhenTerminated().toCompletableFuture().join();
      }
      try (Stream<Path> paths = Files.walk(root)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** The JVM's CPU (every thread, user + system) over {@code seconds}, in cores. */
  private static double cores(int seconds) throws InterruptedException {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    return (os.getProcessCpuTime() - cpu0) / (double) (System.nanoTime() - t0);
  }

  /** Asks each shard's leader replica for its status until all lead (or the time is up); returns how many do. */
  private static int awaitLeaders(List<DataPlane> planes, Map<ShardId, ShardAssignment> shards, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    int leading = 0;
    while (System.nanoTime() < deadline) {
      leading = 0;
      for (ShardAssignment a : shards.values()) {
        DataPlane plane = planes.get(a.leader());
        CompletionStage<ReplicaStatus> status = AskPattern.ask(plane.directory(),
            replyTo -> new ReplicaDirectory.DescribeReplica(a.id(), replyTo), Duration.ofSeconds(30),
            plane.system().scheduler());
        if (status.toCompletableFuture().get().role() == ReplicaRole.LEADER) {
          leading++;
        }
      }
      if (leading == shards.size()) {
        return leading;
      }
      Thread.sleep(1000);
    }
    return leading;
  }

  /** How many shards' leaders count all three replicas in their in-sync set. */
  private static int fullyInSync(List<DataPlane> planes, Map<ShardId, ShardAssignment> shards) throws Exception {
    int full = 0;
    for (ShardAssignment a : shards.values()) {
      DataPlane plane = planes.get(a.leader());
      ReplicaStatus status = AskPattern.<ReplicaDirectory.Command, ReplicaStatus>ask(plane.directory(),
          replyTo -> new ReplicaDirectory.DescribeReplica(a.id(), replyTo), Duration.ofSeconds(30),
          plane.system().scheduler()).toCompletableFuture().get();
      if (status.inSync().size() == 3) {
        full++;
      }
    }
    return full;
  }

  private static int arg(String[] args, int index, int fallback) {
    if (args.length <= index) {
      return fallback;
    }
    String a = args[index];
    return Integer.parseInt(a.contains("=") ? a.substring(a.indexOf('=') + 1) : a);
  }
}
