package io.felix.bench.cluster;

import io.felix.client.admin.AdminClient;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * What idle shards cost: the CPU of three broker processes ({@code bin/felix local up}, default heaps) first with
 * no stream, then hosting one stream of {@code shards} shards (replication factor 3, so every broker hosts a replica
 * of every shard) that nobody writes to or reads from. Each phase measures every broker's CPU time (user + system,
 * from the OS) over {@code seconds}, after {@code settleSeconds} of quiet; it prints cores per broker in both phases
 * and the difference, scaled to 10,000 replicas per broker.
 *
 * <pre>
 * java -cp bench/target/felix-bench.jar io.felix.bench.cluster.IdleShardsBenchmark \
 *     [shards=2000] [seconds=60] [settleSeconds=30] [leaderTimeoutSeconds=600]
 * </pre>
 * Runs {@code bin/felix} of the checkout it finds (FELIX_HOME, else upward from the working directory), in
 * {@code data/bench-idle/local} on {@code FELIX_PORT_OFFSET}'s ports (else a free range); {@code FELIX_BROKER_JAR}
 * runs the brokers from another jar (a build from before a change, to compare). Not a test: it asserts nothing and
 * its figures depend on the machine and on what else runs on it (say how loaded it was with every figure).
 */
public final class IdleShardsBenchmark {
  private static final String STREAM = "idle";

  private IdleShardsBenchmark() {}

  public static void main(String[] args) throws Exception {
    int shards = arg(args, 0, 2000);
    int seconds = arg(args, 1, 60);
    int settle = arg(args, 2, 30);
    int leaderTimeout = arg(args, 3, 600);
    Path dir = Path.of("data", "bench-idle", "local").toAbsolutePath();
    deleteTree(dir);
    Files.createDirectories(dir);
    System.out.printf("idle shards: 3 brokers, 1 stream of %,d shards (RF 3), %d s per phase after %d s settle%s%n",
        shards, seconds, settle, System.getenv("FELIX_BROKER_JAR") == null ? ""
            : ", brokers from " + System.getenv("FELIX_BROKER_JAR"));
    try (LocalCluster cluster = LocalCluster.startOnFreePorts(dir, UpOptions.brokers(3), Map.of())) {
      Thread.sleep(settle * 1000L);
      Map<Integer, Double> empty = cores(cluster, seconds);
      print("no stream", empty);

      AdminClient admin = cluster.admin(0);
      long started = System.nanoTime();
      AdminClient.Reply created = admin.post("/v1/streams", "{\"name\":\"" + STREAM + "\",\"shards\":" + shards
          + ",\"replication_factor\":3}");
      if (!created.ok()) {
        // A large stream can take the singleton longer than the admin API waits (503): its leaders still come.
        System.out.printf("POST /v1/streams answered %d after %.1f s: %s%n", created.status(),
            (System.nanoTime() - started) / 1e9, created.body());
      }
      long led = awaitLeaders(admin, shards, Duration.ofSeconds(leaderTimeout));
      System.out.printf("stream created: %,d of %,d shards led after %.1f s%n", led, shards,
          (System.nanoTime() - started) / 1e9);
      Thread.sleep(settle * 1000L);
      Map<Integer, Double> idle = cores(cluster, seconds);
      print(String.format("%,d idle shards", shards), idle);

      System.out.println("broker  cores(empty)  cores(idle shards)  difference  per 10,000 idle replicas");
      for (int b : idle.keySet()) {
        double diff = idle.get(b) - empty.get(b);
        System.out.printf("%-7d %-13.4f %-19.4f %-11.4f %.4f (absolute %.4f)%n", b, empty.get(b), idle.get(b),
            diff, diff * 10_000 / shards, idle.get(b) * 10_000 / shards);
      }
    }
  }

  /**
   * Each broker's CPU over {@code seconds}, in cores (CPU seconds per second). A broker process that restarted during
   * the window (its supervisor starts it again when it exits, e.g. downed on an overloaded machine) spoils it: the
   * window is measured again, at most three times.
   */
  private static Map<Integer, Double> cores(LocalCluster cluster, int seconds) throws Exception {
    for (int attempt = 1; ; attempt++) {
      Map<Integer, Long> pids = pids(cluster);
      Map<Integer, Double> before = cluster.cpuSeconds();
      long t0 = System.nanoTime();
      Thread.sleep(seconds * 1000L);
      Map<Integer, Double> after = cluster.cpuSeconds();
      double elapsed = (System.nanoTime() - t0) / 1e9;
      if (pids.equals(pids(cluster)) || attempt == 3) {
        Map<Integer, Double> out = new TreeMap<>();
        before.forEach((b, cpu) -> out.put(b, (after.get(b) - cpu) / elapsed));
        return out;
      }
      System.out.println("a broker process restarted during the window (pids " + pids + " -> " + pids(cluster)
          + "): measuring again");
    }
  }

  private static Map<Integer, Long> pids(LocalCluster cluster) throws Exception {
    Map<Integer, Long> pids = new TreeMap<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      pids.put(b, cluster.pid(b));
    }
    return pids;
  }

  private static void print(String phase, Map<Integer, Double> cores) {
    StringBuilder b = new StringBuilder(phase + ": cores per broker");
    cores.forEach((broker, c) -> b.append(String.format("  %d=%.4f", broker, c)));
    System.out.println(b);
  }

  /** Polls the singleton's view until every shard of the stream has a leader; returns how many have one. */
  private static long awaitLeaders(AdminClient admin, int shards, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    long led = 0;
    while (System.nanoTime() < deadline) {
      AdminClient.Reply reply;
      try {
        reply = admin.get("/v1/replication-status");
      } catch (java.io.IOException e) {
        Thread.sleep(500);
        continue;
      }
      if (reply.ok()) {
        led = leaders(reply.body());
        if (led >= shards) {
          return led;
        }
      }
      Thread.sleep(500);
    }
    return led;
  }

  /** The leaders of the stream in the text form of /v1/replication-status ({@code idle:0=4,1=4,2=4}). */
  static long leaders(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith(STREAM + ":")) {
        long sum = 0;
        for (String part : line.substring(STREAM.length() + 1).split(",")) {
          int eq = part.indexOf('=');
          if (eq > 0) {
            sum += Long.parseLong(part.substring(eq + 1).trim());
          }
        }
        return sum;
      }
    }
    return 0;
  }

  private static int arg(String[] args, int index, int fallback) {
    if (args.length <= index) {
      return fallback;
    }
    String a = args[index];
    return Integer.parseInt(a.contains("=") ? a.substring(a.indexOf('=') + 1) : a);
  }

  private static void deleteTree(Path dir) throws java.io.IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (var paths = Files.walk(dir)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
