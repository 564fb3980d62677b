package io.felix.loadgen.chaos;

import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeRun;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.Summary;
import io.felix.loadgen.Verifier;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.stream.Stream;

/**
 * {@code bench failover}: how long a SIGKILLed broker's shards take to accept writes on new leaders. Starts three
 * supervised broker processes (the launcher's {@code LocalCluster}), creates a stream, keeps a steady ledgered produce
 * running, and kills a broker N times: the broker leading the most shards among those not hosting the placement
 * singleton ({@link Victim#LEADER}), or the singleton's host ({@link Victim#SINGLETON_HOST}). Per kill it prints
 * the first evidence of the loss, the first fence, the last promotion stored (from the surviving brokers' logs, see
 * {@link BrokerLogPhases}) and when each shard the broker led acknowledged a write (a probe per shard), all from
 * the kill; then the distribution, and whether the produced stream reads back complete.
 */
public final class FailoverBench {
  private static final String STREAM = "failover";
  private static final Duration PROBE_PAUSE = Duration.ofMillis(50);
  private static final Duration WHOLE_TIMEOUT = Duration.ofSeconds(180);
  private static final Duration BALANCE_TIMEOUT = Duration.ofSeconds(90);

  /** Which broker each kill takes. */
  public enum Victim {
    LEADER("leader"), SINGLETON_HOST("singleton-host");

    private final String wireName;

    Victim(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }

    public static Victim fromWireName(String name) {
      for (Victim v : values()) {
        if (v.wireName.equals(name)) {
          return v;
        }
      }
      throw new IllegalArgumentException("--victim must be leader or singleton-host, got " + name);
    }
  }

  /**
   * @param settle steady load before each kill, and after the cluster is whole again
   * @param bound how long a shard may take to acknowledge before the kill counts as failed
   */
  public record Settings(Path dir, Victim victim, int kills, int shards, long rate, Duration settle,
      Duration bound) {}

  /** One kill; every time from the SIGKILL. */
  record Kill(int number, int broker, List<Integer> shards, BrokerLogPhases.Phases phases,
      Map<Integer, Duration> acknowledged, List<Integer> notWritable) {

    Optional<Duration> writable() {
      return notWritable.isEmpty() ? acknowledged.values().stream().max(Comparator.naturalOrder()) : Optional.empty();
    }

    String line() {
      StringBuilder perShard = new StringBuilder();
      acknowledged.forEach((shard, t) -> perShard.append(' ').append(shard).append('=').append(ms(Optional.of(t))));
      notWritable.forEach(shard -> perShard.append(' ').append(shard).append("=never"));
      return String.format("%-4d %-6d %-4s %-8s %-7s %-8s %-9s %-9s %-7s %-8s %-8s%s", number, broker,
          shards.size(), ms(phases.detected()), ms(phases.downed()), ms(phases.removed()),
          ms(phases.singletonStarted()), ms(phases.recovered()), ms(phases.fenced()), ms(phases.promoted()),
          ms(writable()), perShard);
    }
  }

  private final Settings settings;
  private final Map<String, String> launcherEnvironment;
  private final PrintStream out;

  public FailoverBench(Settings settings, Map<String, String> launcherEnvironment, PrintStream out) {
    this.settings = settings;
    this.launcherEnvironment = launcherEnvironment;
    this.out = out;
  }

  /** @return whether every kill had its shards writable within the bound and nothing acknowledged was lost */
  public boolean run() throws IOException, InterruptedException {
    out.printf("bench failover: 3 brokers, stream %s (%d shards, replication factor 3), %d records/s, %d kills of"
        + " the %s%n", STREAM, settings.shards(), settings.rate(), settings.kills(),
        settings.victim() == Victim.LEADER ? "broker leading the most shards, not hosting the singleton"
            : "singleton's host");
    ChaosRun.deleteTree(settings.dir());
    List<Kill> kills = new ArrayList<>();
    boolean ok;
    try (LocalCluster local = LocalCluster.startOnFreePorts(settings.dir(), UpOptions.brokers(3),
        launcherEnvironment)) {
      local.admin(0).createStream(STREAM, settings.shards(), 3);
      ChaosCluster cluster = new ChaosCluster(local, STREAM);
      List<HostPort> bootstrap = HostPort.parseList(local.bootstrap());
      new WritabilityProbe(bootstrap, STREAM, settings.shards()).await(Duration.ofSeconds(60));
      ProduceRun load = ProduceRun.steady(bootstrap, STREAM, settings.rate(), 2);
      FutureTask<Summary> producing = new FutureTask<>(load::produce);
      new Thread(producing, "failover-load").start();
      try {
        out.println("kill broker led  detected down    removed  singleton recovered fenced  promoted writable"
            + " per shard (ms after the kill)");
        for (int n = 1; n <= settings.kills(); n++) {
          kills.add(kill(n, cluster, bootstrap));
          out.println(kills.get(kills.size() - 1).line());
        }
      } finally {
        load.stop();
      }
      ok = verify(producing, bootstrap);
    }
    out.print(distribution(kills));
    return ok && kills.stream().allMatch(k -> k.writable().filter(t -> t.compareTo(settings.bound()) <= 0).isPresent());
  }

  private Kill kill(int number, ChaosCluster cluster, List<HostPort> bootstrap)
      throws IOException, InterruptedException {
    cluster.awaitWhole(WHOLE_TIMEOUT);
    int victim = awaitVictim(cluster);
    Thread.sleep(settings.settle().toMillis());
    List<Integer> led = new ArrayList<>();
    cluster.leaders().forEach((shard, leader) -> {
      if (leader == victim) {
        led.add(shard);
      }
    });
    BrokerLogPhases logs = BrokerLogPhases.mark(cluster.local());
    Instant killedAt = Instant.now();
    cluster.local().signal(victim, "KILL");
    WritabilityProbe.Writability writability =
        new WritabilityProbe(bootstrap, STREAM, led, PROBE_PAUSE).await(WHOLE_TIMEOUT);
    Thread.sleep(1_000); // the brokers' log lines of the last promotions reach their files
    return new Kill(number, victim, led, logs.read(victim, STREAM, led, killedAt), writability.acknowledgedAfter(),
        writability.notWritable());
  }

  /**
   * The broker to kill, once it leads its share of the shards again (after a kill the restarted broker gets its
   * leaders back by rebalancing moves, one at a time).
   */
  private int awaitVictim(ChaosCluster cluster) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + BALANCE_TIMEOUT.toNanos();
    int share = settings.shards() / cluster.brokers();
    while (true) {
      int singleton = cluster.singletonHost();
      int[] counts = new int[cluster.brokers()];
      cluster.leaders().values().forEach(b -> counts[b]++);
      int victim = singleton;
      if (settings.victim() == Victim.LEADER) {
        victim = -1;
        for (int b = 0; b < counts.length; b++) {
          if (b != singleton && (victim < 0 || counts[b] > counts[victim])) {
            victim = b;
          }
        }
      }
      if (counts[victim] >= Math.max(1, share) || System.nanoTime() > deadline) {
        return victim;
      }
      Thread.sleep(500);
    }
  }

  private boolean verify(FutureTask<Summary> producing, List<HostPort> bootstrap) throws InterruptedException {
    Summary summary;
    try {
      summary = producing.get();
    } catch (ExecutionException e) {
      out.println("bench failover: the producers failed: " + e.getCause().getMessage());
      return false;
    }
    Verifier.Report report = ConsumeRun.verifyAgainst(bootstrap, STREAM, summary);
    long lost = report.producers().stream().mapToLong(Verifier.ProducerReport::missing).sum();
    long duplicated = report.producers().stream().mapToLong(Verifier.ProducerReport::duplicated).sum();
    out.printf("load: %d records acknowledged, %d lost, %d duplicated%n", summary.acked(), lost, duplicated);
    return lost == 0 && duplicated == 0;
  }

  /**
   * Per phase, over the kills that showed it: min, median, 90th percentile (nearest rank) and max, in ms after the
   * kill. The singleton phases (removed, singleton, recovered) are the path of a killed singleton host.
   */
  static String distribution(List<Kill> kills) {
    StringBuilder s = new StringBuilder(String.format("%-10s %-6s %-8s %-8s %-8s %-8s (ms after the kill, over %d kills)%n",
        "phase", "kills", "min", "median", "p90", "max", kills.size()));
    s.append(row("detected", kills.stream().map(k -> k.phases().detected())));
    s.append(row("down", kills.stream().map(k -> k.phases().downed())));
    s.append(row("removed", kills.stream().map(k -> k.phases().removed())));
    s.append(row("singleton", kills.stream().map(k -> k.phases().singletonStarted())));
    s.append(row("recovered", kills.stream().map(k -> k.phases().recovered())));
    s.append(row("fenced", kills.stream().map(k -> k.phases().fenced())));
    s.append(row("promoted", kills.stream().map(k -> k.phases().promoted())));
    s.append(row("writable", kills.stream().map(Kill::writable)));
    return s.toString();
  }

  private static String row(String phase, Stream<Optional<Duration>> times) {
    List<Long> sorted = times.flatMap(Optional::stream).map(Duration::toMillis).sorted().toList();
    if (sorted.isEmpty()) {
      return String.format("%-10s %-6d %-8s %-8s %-8s %-8s%n", phase, 0, "-", "-", "-", "-");
    }
    int n = sorted.size();
    long median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    long p90 = sorted.get((int) Math.ceil(0.9 * n) - 1);
    return String.format("%-10s %-6d %-8d %-8d %-8d %-8d%n", phase, n, sorted.get(0), median, p90, sorted.get(n - 1));
  }

  private static String ms(Optional<Duration> t) {
    return t.map(d -> Long.toString(d.toMillis())).orElse("-");
  }
}
