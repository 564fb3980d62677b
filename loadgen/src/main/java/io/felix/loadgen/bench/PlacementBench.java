package io.felix.loadgen.bench;

import io.felix.client.admin.AdminClient;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.PlacementStrategy;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
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
public final class PlacementBench {

  /** The other streams, in the order the bench creates them: 49 shards with the cache. */
  static final Map<String, Integer> OTHER_STREAMS = orderedOf("perf-leader", 12, "perf-all", 12, "perf-plain", 12,
      "cache", 13);
  static final String STREAM = "perf-quorum";
  static final int STREAM_SHARDS = 12;

  /**
   * @param brokerJar the brokers' jar, or null for the launcher's own (broker/target/felix-broker.jar)
   * @param rounds how many times each strategy runs, the strategies alternating (noise shows as a range)
   * @param cpuPerBroker each broker's CPU budget in cores (its own cgroup), or empty for none
   */
  public record Settings(Path brokerJar, Path dir, List<String> strategies, int recreates, Duration load, int recordSize,
      int producers, Duration readyTimeout, int rounds, OptionalDouble cpuPerBroker) {}

  /** One load against the stream: its acks level, the producer's figures, each broker's CPU-seconds during it. */
  record Load(String acks, ProduceRun.Result result, Map<Integer, Double> cpuSeconds, double seconds,
      double mebibytes) {}

  /**
   * What one run of a strategy produced: the stream's leaders after every creation, the totals, and its loads:
   * acks quorum always, then acks leader under cluster-share, where one broker leads the whole stream and the two
   * others only follow it, so the brokers' CPU splits into a leader's cost and a follower's.
   */
  record Outcome(String strategy, int round, List<Map<Integer, Integer>> streamLeaders, Map<Integer, Integer> totals,
      List<Load> loads) {
    Load quorum() {
      return loads.get(0);
    }

    Map<Integer, Integer> lastLeaders() {
      return streamLeaders.get(streamLeaders.size() - 1);
    }
  }

  private final Settings settings;

  public PlacementBench(Settings settings) {
    this.settings = settings;
  }

  public List<Outcome> run() throws IOException, InterruptedException {
    List<Outcome> outcomes = new ArrayList<>();
    for (int round = 1; round <= settings.rounds(); round++) {
      for (String strategy : settings.strategies()) {
        outcomes.add(runOne(strategy, round));
      }
    }
    printComparison(outcomes);
    printFollowerCost(outcomes);
    return outcomes;
  }

  private Outcome runOne(String strategy, int round) throws IOException, InterruptedException {
    String budget = settings.cpuPerBroker().isPresent()
        ? ", each with a budget of " + settings.cpuPerBroker().getAsDouble() + " CPU" : "";
    System.out.printf("%n== strategy %s, round %d of %d: starting 3 brokers (replication factor 3%s)%n", strategy,
        round, settings.rounds(), budget);
    Path dir = settings.dir().resolve(strategy);
    wipe(dir);
    Map<String, String> environment = new TreeMap<>();
    if (settings.brokerJar() != null) {
      environment.put("FELIX_BROKER_JAR", settings.brokerJar().toAbsolutePath().toString());
    }
    environment.put("FELIX_READY_TIMEOUT", Long.toString(settings.readyTimeout().toSeconds()));
    UpOptions up = UpOptions.brokers(3).strategy(PlacementStrategy.fromWireName(strategy));
    if (settings.cpuPerBroker().isPresent()) {
      up = up.cpuPerBroker(settings.cpuPerBroker().getAsDouble());
    }
    try (LocalCluster cluster = LocalCluster.startOnFreePorts(dir, up, environment)) {
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
      for (int creation = 0; creation <= settings.recreates(); creation++) {
        if (creation > 0) {
          admin.deleteOk("/v1/streams/" + STREAM);
          awaitGone(admin, STREAM);
        }
        admin.createStream(STREAM, STREAM_SHARDS, 3);
        now = awaitLed(admin, all, ids);
        perCreation.add(now.counts(STREAM));
        System.out.printf("   %-11s %s:%s   totals %s%n", creation == 0 ? "created" : "recreate #" + creation,
            STREAM, Leaders.format(now.counts(STREAM)), Leaders.format(now.totals()));
      }
      System.out.println("   replication status (GET /v1/replication-status):");
      admin.getOk("/v1/replication-status").lines().forEach(l -> System.out.println("     " + l));

      List<Load> loads = new ArrayList<>();
      loads.add(load(cluster, dir, "quorum"));
      if (strategy.equals("cluster-share")) {
        loads.add(load(cluster, dir, "leader"));
      }
      Outcome outcome = new Outcome(strategy, round, perCreation, now.totals(), loads);
      printOutcome(outcome);
      return outcome;
    } finally {
      // The load leaves gigabytes of segments; the logs and configs stay for reading.
      for (int b = 0; b < 3; b++) {
        deleteTree(dir.resolve("broker" + b).resolve("data"));
      }
    }
  }

  private Load load(LocalCluster cluster, Path dir, String acks) throws IOException, InterruptedException {
    System.out.printf("   load: %s in cluster mode for %d s, %d B records, acks %s, %d producers%n", STREAM,
        settings.load().toSeconds(), settings.recordSize(), acks, settings.producers());
    Map<Integer, Double> cpuBefore = cluster.cpuSeconds();
    long start = System.nanoTime();
    ProduceRun.Result result = ProduceRun.run(cluster.bootstrap(), STREAM, "cluster", acks, settings.load(),
        settings.recordSize(), settings.producers(), dir.resolve("produce-" + acks + ".json"));
    double seconds = (System.nanoTime() - start) / 1e9;
    Map<Integer, Double> cpu = new TreeMap<>();
    cluster.cpuSeconds().forEach((b, after) -> cpu.put(b, after - cpuBefore.get(b)));
    return new Load(acks, result, cpu, seconds, result.records() * (double) settings.recordSize() / (1 << 20));
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

  private void printOutcome(Outcome o) {
    for (Load load : o.loads()) {
      ProduceRun.Result r = load.result();
      System.out.printf("   acks %s: %,.0f records/s, %.1f MB/s (p99 %.1f ms, %d failed, %,d acknowledged)%n",
          load.acks(), r.recordsPerSecond(), r.megabytesPerSecond(), r.p99Millis(), r.errors(), r.records());
      System.out.printf("   broker CPU during it (%.1f s):%n", load.seconds());
      load.cpuSeconds().forEach((b, cpu) -> System.out.printf(
          "     broker %d: %6.2f CPU-s = %.2f cores%s   (%d of %s's leaders)%n", b, cpu, cpu / load.seconds(),
          budgetShare(cpu / load.seconds()), o.lastLeaders().get(b), STREAM));
    }
  }

  /** ", 87% of its budget" when brokers have one. */
  private String budgetShare(double cores) {
    return settings.cpuPerBroker().isPresent()
        ? String.format(", %3.0f%% of its budget", 100 * cores / settings.cpuPerBroker().getAsDouble()) : "";
  }

  /** Per strategy, over its rounds: the stream's leaders, and the median and range of throughput and of CPU. */
  private void printComparison(List<Outcome> outcomes) {
    String unit = settings.cpuPerBroker().isPresent() ? "share of the CPU budget" : "cores";
    System.out.printf("%n== summary: %s, 3 brokers, replication factor 3, acks quorum, %d round(s) per strategy"
        + " (median [min-max])%n", STREAM, settings.rounds());
    for (String strategy : settings.strategies()) {
      List<Outcome> runs = outcomes.stream().filter(o -> o.strategy().equals(strategy)).toList();
      System.out.printf("%-14s leaders per broker %s; records/s %s%n", strategy,
          runs.stream().map(o -> Leaders.format(o.lastLeaders())).distinct().toList(),
          Spread.of(runs.stream().map(o -> o.quorum().result().recordsPerSecond()).toList()).format("%,.0f"));
      for (int b = 0; b < 3; b++) {
        int broker = b;
        Spread cpu = Spread.of(runs.stream().map(o -> cores(o.quorum(), broker)
            / settings.cpuPerBroker().orElse(1)).toList());
        System.out.printf("%-14s   broker %d CPU (%s): %s%n", "", broker, unit, cpu.format("%.2f"));
      }
    }
  }

  private static double cores(Load load, int broker) {
    return load.cpuSeconds().get(broker) / load.seconds();
  }

  /**
   * From the cluster-share runs, where one broker leads all of the stream's shards and the two others follow it:
   * CPU-ms per MiB acknowledged on the leader and on each follower, per acks level.
   */
  private void printFollowerCost(List<Outcome> outcomes) {
    List<Outcome> lopsided = outcomes.stream().filter(o -> o.strategy().equals("cluster-share"))
        .filter(o -> o.lastLeaders().containsValue(STREAM_SHARDS)).toList();
    if (lopsided.isEmpty()) {
      return;
    }
    System.out.printf("%n== leader against follower cost (cluster-share runs: one broker leads all %d shards)%n",
        STREAM_SHARDS);
    for (String acks : List.of("quorum", "leader")) {
      List<Double> leader = new ArrayList<>();
      List<Double> follower = new ArrayList<>();
      for (Outcome o : lopsided) {
        o.loads().stream().filter(l -> l.acks().equals(acks)).forEach(l -> o.lastLeaders().forEach((b, led) ->
            (led == STREAM_SHARDS ? leader : follower).add(1000 * l.cpuSeconds().get(b) / l.mebibytes())));
      }
      if (!leader.isEmpty()) {
        Spread lead = Spread.of(leader);
        Spread follow = Spread.of(follower);
        System.out.printf("acks %-7s leader %s CPU-ms/MiB, each follower %s CPU-ms/MiB: a follower costs %.0f%% of"
            + " the leader%n", acks, lead.format("%.1f"), follow.format("%.1f"), 100 * follow.median() / lead.median());
      }
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
