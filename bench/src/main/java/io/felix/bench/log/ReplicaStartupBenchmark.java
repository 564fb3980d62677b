package io.felix.bench.log;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.DataPlane;
import io.felix.broker.shard.ReplicaDirectory;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.LoggerFactory;

/**
 * How long a broker's {@link ReplicaDirectory} takes to bring up {@code replicas} replica actors, each opening its log:
 * new (empty directories) and again after a restart (the same logs, closed cleanly), with the heap and file
 * descriptors of the broker once they are all up and idle. One data plane (no control plane) on 127.0.0.1; the table
 * has this broker host every shard alone, without a leader, so the replicas open their logs and wait (what a broker
 * does between opening and the singleton's first promotion). The time is from the table's arrival to the directory's
 * line "opened N replicas", i.e. until every replica has opened its log and {@code replica.state}.
 *
 * <pre>
 * java -Xmx512m -cp bench/target/felix-bench.jar io.felix.bench.log.ReplicaStartupBenchmark [replicas=10000] [dir=...]
 * </pre>
 */
public final class ReplicaStartupBenchmark {
  private ReplicaStartupBenchmark() {}

  public static void main(String[] args) throws Exception {
    int replicas = 10_000;
    Path base = Path.of(System.getProperty("java.io.tmpdir"));
    for (String a : args) {
      if (a.startsWith("replicas=")) {
        replicas = Integer.parseInt(a.substring("replicas=".length()));
      } else if (a.startsWith("dir=")) {
        base = Path.of(a.substring("dir=".length()));
      } else {
        throw new IllegalArgumentException("arguments are replicas=N and dir=PATH, got '" + a + "'");
      }
    }
    Path dataDir = Files.createTempDirectory(base, "felix-startup");
    ((Logger) LoggerFactory.getLogger("io.felix")).setLevel(ch.qos.logback.classic.Level.INFO);
    ((Logger) LoggerFactory.getLogger("org.apache.pekko")).setLevel(ch.qos.logback.classic.Level.WARN);
    ListAppender<ILoggingEvent> lines = new ListAppender<>();
    lines.start();
    ((Logger) LoggerFactory.getLogger(ReplicaDirectory.class)).addAppender(lines);
    System.out.printf("replicas=%d dir=%s max-heap=%d MiB%n", replicas, dataDir, Runtime.getRuntime().maxMemory() >> 20);
    try {
      Footprint idle = Footprint.take();
      run("new", replicas, dataDir, lines, idle);
      run("restart", replicas, dataDir, lines, idle);
    } finally {
      try (Stream<Path> tree = Files.walk(dataDir)) {
        for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private static void run(String what, int replicas, Path dataDir, ListAppender<ILoggingEvent> lines,
      Footprint before) throws Exception {
    DataPlane plane = DataPlane.startInOwnSystem(DataPlane.localConfig(0, dataDir, ""));
    try {
      UUID incarnation = new UUID(24, 24);
      TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
      for (int i = 0; i < replicas; i++) {
        ShardId id = new ShardId("big", i);
        shards.put(id, new ShardAssignment(id, List.of(0), List.of(), ShardAssignment.NO_LEADER, 0, incarnation));
      }
      AssignmentTable table = new AssignmentTable(1, Map.of(0, plane.endpoint()), Map.of("big", replicas), shards);
      lines.list.clear();
      long started = System.nanoTime();
      plane.directory().tell(new ReplicaDirectory.ApplyAssignments(table));
      String done = null;
      while (done == null) {
        Thread.sleep(20);
        done = List.copyOf(lines.list).stream().map(ILoggingEvent::getFormattedMessage)
            .filter(m -> m.contains(" opened ") && m.contains(" replicas in ")).findFirst().orElse(null);
        if (System.nanoTime() - started > TimeUnit.MINUTES.toNanos(10)) {
          throw new IllegalStateException("the replicas did not all open within 10 minutes");
        }
      }
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
      Footprint up = Footprint.take();
      System.out.printf("%-8s %d replicas up in %d ms (directory: \"%s\"); %s; per replica: %.2f fds, %.0f bytes of"
          + " heap%n", what + ":", replicas, millis, done, up, (double) (up.fds - before.fds) / replicas,
          (double) (up.heapBytes - before.heapBytes) / replicas);
    } finally {
      plane.system().terminate();
      plane.system().getWhenTerminated().toCompletableFuture().get(5, TimeUnit.MINUTES);
    }
  }

  /** Open file descriptors and heap used after a full GC. */
  private record Footprint(long fds, long heapBytes) {
    static Footprint take() throws Exception {
      for (int i = 0; i < 3; i++) {
        System.gc();
      }
      try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
        return new Footprint(open.count(), ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
      }
    }

    @Override
    public String toString() {
      return fds + " fds, " + (heapBytes >> 20) + " MiB heap";
    }
  }
}
