package io.felix.loadgen.bench;

import io.felix.client.admin.AdminClient;
import io.felix.loadgen.local.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The placement benchmark of docs/placement.md, on a local cluster this bench starts itself: three brokers,
 * replication factor 3, other streams filling two brokers to their share of leaders, then a 12-shard stream
 * created and recreated three times, and a load against it; once per placement strategy.
 *
 * <p>The precondition "other streams filling two brokers to their share" is built, not hoped for: placement
 * is paused (so nothing moves on its own; new shards are still placed), the other streams are created (49
 * shards, so that with the 12-shard stream the cluster share is ceil(61 / 3) = 21), and manual leadership
 * transfers ({@code POST /v1/shard-moves}) bring their leaders to 21/21/7. The 12-shard stream is then placed by
 * the strategy under test alone. Under {@code cluster-share} brokers 0 and 1 are at the share, so broker 2
 * takes all twelve; under {@code stream-aware} the stream's floor and ceiling (4 and 4) come first: 4/4/4.
 */
final class PlacementBench {

  /** The other streams, in the order the bench creates them: 49 shards with the cache. */
  static final Map<String, Integer> OTHER_STREAMS = orderedOf("perf-leader", 12, "perf-all", 12, "perf-plain", 12,
      "cache", 13);
  static final String STREAM = "perf-quorum";
  static final int STREAM_SHARDS = 12;

  /** @param brokerJar the brokers' jar, or null for the launcher's own (broker/target/felix-broker.jar) */
  record Settings(Path brokerJar, Path dir, List<String> strategies, int recreates, Duration load, int recordSize,
      int producers, Duration readyTimeout) {}

  /** What one strategy produced: the stream's leaders after every creation, the totals, the load figures. */
  record Outcome(String strategy, List<Map<Integer, Integer>> streamLeaders, Map<Integer, Integer> totals,
      ProduceRun.Result load, Map<Integer, Double> cpuSeconds, double loadSeconds) {}

  private final Settings settings;

  PlacementBench(Settings settings) {
    this.settings = settings;
  }

  List<Outcome> run() throws IOException, InterruptedException {
    List<Outcome> outcomes = new ArrayList<>();
    for (String strategy : settings.strategies()) {
      outcomes.add(runOne(strategy));
    }
    printComparison(outcomes);
    return outcomes;
  }

  private Outcome runOne(String strategy) throws IOException, InterruptedException {
    System.out.printf("%n== strategy %s: starting 3 brokers (replication factor 3)%n", strategy);
    Path dir = settings.dir().resolve(strategy);
    wipe(dir);
    Map<String, String> environment = new TreeMap<>();
    if (settings.brokerJar() != null) {
      environment.put("FELIX_BROKER_JAR", settings.brokerJar().toAbsolutePath().toString());
    }
    environment.put("FELIX_READY_TIMEOUT", Long.toString(settings.readyTimeout().toSeconds()));
    try (LocalCluster cluster = LocalCluster.up(LocalCluster.findScript(), dir, 3,
        List.of("--zones", "a,b,c", "--strategy", strategy), environment)) {
      AdminClient admin = cluster.admin(0);
      List<Integer> ids = List.of(0, 1, 2);
      admin.postOk("/v1/placement/pause", "{}");
      for (var s : OTHER_STREAMS.entrySet()) {
        admin.createStream(s.getKey(), s.getValue(), 3);
      }
      Leaders before = awaitLed(admin, OTHER_STREAMS.keySet(), ids);
      Map<Integer, Integer> target = fillTwoToTheirShare(ids, OTHER_STREAMS.values().stream().mapToInt(i -> i).sum());
      System.out.printf("   other streams %s placed with leaders %s; arranging %s (placement paused)%n",
          OTHER_STREAMS.keySet(), Leaders.format(before.totals()), Leaders.format(target));
      int moves = LeaderArrangement.arrange(admin, OTHER_STREAMS.keySet(), ids, target);
      System.out.printf("   %d leadership transfers done; other streams now lead %s%n", moves,
          Leaders.format(awaitLed(admin, OTHER_STREAMS.keySet(), ids).totals()));

      List<String> all = new ArrayList<>(OTHER_STREAMS.keySet());
      all.add(STREAM);
      List<Map<Integer, Integer>> perCreation = new ArrayList<>();
      Leaders now = null;
      for (int round = 0; round <= settings.recreates(); round++) {
        if (round > 0) {
          admin.deleteOk("/v1/streams/" + STREAM);
          awaitGone(admin, STREAM);
        }
        admin.createStream(STREAM, STREAM_SHARDS, 3);
        now = awaitLed(admin, all, ids);
        perCreation.add(now.counts(STREAM));
        System.out.printf("   %-11s %s:%s   totals %s%n", round == 0 ? "created" : "recreate #" + round, STREAM,
            Leaders.format(now.counts(STREAM)), Leaders.format(now.totals()));
      }
      System.out.println("   replication status (GET /v1/replication-status):");
      admin.getOk("/v1/replication-status").lines().forEach(l -> System.out.println("     " + l));

      System.out.printf("   load: %s in cluster mode for %d s, %d B records, acks quorum, %d producers%n", STREAM,
          settings.load().toSeconds(), settings.recordSize(), settings.producers());
      Map<Integer, Double> cpuBefore = cluster.cpuSeconds();
      long start = System.nanoTime();
      ProduceRun.Result load = ProduceRun.run(cluster.bootstrap(), STREAM, "cluster", settings.load(),
          settings.recordSize(), settings.producers(), dir.resolve("produce.json"));
      double seconds = (System.nanoTime() - start) / 1e9;
      Map<Integer, Double> cpu = new TreeMap<>();
      cluster.cpuSeconds().forEach((b, after) -> cpu.put(b, after - cpuBefore.get(b)));
      Outcome outcome = new Outcome(strategy, perCreation, now.totals(), load, cpu, seconds);
      printOutcome(outcome);
      return outcome;
    } finally {
      // The load leaves gigabytes of segments; the logs and configs stay for reading.
      for (int b = 0; b < 3; b++) {
        deleteTree(dir.resolve("broker" + b).resolve("data"));
      }
    }
  }

  /** Brokers 0..n-2 at the cluster share (counting the 12-shard stream to come), the rest on the last one. */
  static Map<Integer, Integer> fillTwoToTheirShare(List<Integer> ids, int otherShards) {
    int share = (otherShards + STREAM_SHARDS + ids.size() - 1) / ids.size();
    Map<Integer, Integer> target = new TreeMap<>();
    int left = otherShards;
    for (int i = 0; i < ids.size(); i++) {
      int n = i < ids.size() - 1 ? Math.min(share, left) : left;
      target.put(ids.get(i), n);
      left -= n;
    }
    return target;
  }

  static Leaders awaitLed(AdminClient admin, java.util.Collection<String> streams, List<Integer> ids)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Leaders l = Leaders.read(admin, streams, ids);
      if (l.allLed()) {
        return l;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("shards still without a leader after 60 s: " + l.byStream());
      }
      Thread.sleep(200);
    }
  }

  private static void awaitGone(AdminClient admin, String stream) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (admin.status("/v1/streams/" + stream) != 404) {
      if (System.nanoTime() > deadline) {
        throw new IOException("stream " + stream + " still exists 60 s after DELETE");
      }
      Thread.sleep(200);
    }
  }

  private static void printOutcome(Outcome o) {
    System.out.printf("   throughput: %,.0f records/s, %.1f MB/s (p99 %.1f ms, %d failed, %,d acknowledged)%n",
        o.load().recordsPerSecond(), o.load().megabytesPerSecond(), o.load().p99Millis(), o.load().errors(),
        o.load().records());
    System.out.printf("   broker CPU during the load (%.1f s):%n", o.loadSeconds());
    Map<Integer, Integer> last = o.streamLeaders().get(o.streamLeaders().size() - 1);
    o.cpuSeconds().forEach((b, s) -> System.out.printf("     broker %d: %6.2f CPU-s = %.2f cores   (%d of %s's leaders)%n",
        b, s, s / o.loadSeconds(), last.get(b), STREAM));
  }

  private static void printComparison(List<Outcome> outcomes) {
    System.out.printf("%n== summary: %s, 3 brokers, replication factor 3%n", STREAM);
    System.out.printf("%-14s %-32s %-16s %-12s %s%n", "strategy", "leaders per creation", "totals", "records/s",
        "CPU-s per broker during load");
    for (Outcome o : outcomes) {
      StringBuilder creations = new StringBuilder();
      o.streamLeaders().forEach(m -> creations.append(creations.length() == 0 ? "" : " ")
          .append(m.values().stream().map(String::valueOf).reduce((a, b) -> a + "/" + b).orElse("")));
      StringBuilder cpu = new StringBuilder();
      o.cpuSeconds().forEach((b, s) -> cpu.append(String.format("%d=%.1f ", b, s)));
      System.out.printf("%-14s %-32s %-16s %-12.0f %s%n", o.strategy(), creations, Leaders.format(o.totals()),
          o.load().recordsPerSecond(), cpu.toString().trim());
    }
  }

  /** Deletes a previous run's data of this strategy (only DIR/STRATEGY, which the bench itself created). */
  private static void wipe(Path dir) throws IOException {
    deleteTree(dir);
    java.nio.file.Files.createDirectories(dir);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (java.nio.file.Files.exists(dir)) {
      try (var files = java.nio.file.Files.walk(dir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private static Map<String, Integer> orderedOf(Object... pairs) {
    Map<String, Integer> m = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      m.put((String) pairs[i], (Integer) pairs[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }
}
