package io.felix.loadgen.chaos;

import io.felix.client.HostPort;
import io.felix.loadgen.CacheLedger;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import io.felix.loadgen.local.LoopbackPartition;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

/**
 * {@code chaos}: starts a local cluster of broker processes (the launcher's, supervised), creates a
 * stream, and runs rounds of faults until the duration is over and every listed fault ran at least once.
 */
public final class ChaosRun {
  static final String STREAM = "chaos";
  /** Every round's cache writer puts here (as many shards as the stream, replication factor 3). */
  static final String CACHE = "chaos-cache";
  private static final Duration FIRST_WRITABLE = Duration.ofSeconds(60);

  private final ChaosOptions options;
  private final Map<String, String> launcherEnvironment;
  private final PrintStream out;

  /**
   * Runs the rounds and prints a line per round, then the table per fault kind and whether the run passed.
   *
   * @param launcherEnvironment added to the launcher's environment (e.g. FELIX_BROKER_CLASSPATH in tests)
   */
  public static ChaosTable execute(ChaosOptions options, Map<String, String> launcherEnvironment, PrintStream out)
      throws IOException, InterruptedException {
    ChaosTable table = new ChaosRun(options, launcherEnvironment, out).run();
    out.print(table.render());
    out.println(table.ok() ? "chaos: OK" : "chaos: FAILED");
    return table;
  }

  /** @param launcherEnvironment added to the launcher's environment (the tests' broker classpath) */
  ChaosRun(ChaosOptions options, Map<String, String> launcherEnvironment, PrintStream out) {
    this.options = options;
    this.launcherEnvironment = launcherEnvironment;
    this.out = out;
  }

  ChaosTable run() throws IOException, InterruptedException {
    out.printf("chaos: %d brokers, stream %s (%d shards, replication factor 3), %d records/s, cache %s, faults %s, "
            + "for %d s, seed %d%n", options.brokers(), STREAM, options.shards(), options.rate(), CACHE,
        options.faults().stream().map(FaultKind::wireName).toList(), options.duration().toSeconds(), options.seed());
    deleteTree(options.dir());
    ChaosTable table = new ChaosTable();
    long end = System.nanoTime() + options.duration().toNanos();
    Map<String, String> environment = new HashMap<>(launcherEnvironment);
    if (options.faults().stream().anyMatch(FaultKind::partition)) {
      environment.putAll(LoopbackPartition.launcherEnvironment());
    }
    try (LocalCluster local = LocalCluster.startOnFreePorts(options.dir(), UpOptions.brokers(options.brokers()),
        environment)) {
      local.admin(0).createStream(STREAM, options.shards(), 3);
      ChaosCluster cluster = new ChaosCluster(local, STREAM);
      WritabilityProbe.Writability first = new WritabilityProbe(
          HostPort.parseList(local.bootstrap()), STREAM, options.shards()).await(FIRST_WRITABLE);
      if (!first.within(FIRST_WRITABLE)) {
        throw new IOException("shards " + first.notWritable() + " of the new stream are not writable "
            + FIRST_WRITABLE.toSeconds() + " s after its creation");
      }
      // One ledger for the whole run: a key no round overwrote must still show what an earlier round acknowledged.
      CacheLedger cacheLedger =
          new CacheLedger(CacheWriter.KEYS, new SecureRandom().nextLong(), CacheLedger.Writers.ONE);
      createCache(local, cacheLedger);
      Random random = new Random(options.seed());
      try (Nemesis nemesis = new Nemesis(cluster, random, options.partitionHold())) {
        runRounds(table, new ChaosRound(cluster, nemesis, options, cacheLedger), nemesis, random, end);
      }
    }
    return table;
  }

  private void runRounds(ChaosTable table, ChaosRound round, Nemesis nemesis, Random random, long end)
      throws InterruptedException {
    List<FaultKind> turn = new ArrayList<>();
    int number = 0;
    while (number < options.faults().size() || System.nanoTime() < end) {
      if (turn.isEmpty()) {
        turn.addAll(options.faults());
        Collections.shuffle(turn, random);
      }
      RoundResult result = round.run(turn.remove(0));
      table.add(result);
      out.println(result.line(++number));
      if (!result.ok()) {
        heal(nemesis);
      }
    }
  }

  /**
   * Creates the rounds' cache (as many shards as the stream, replication factor 3) and reads every key of the
   * ledger once, none put yet, so that the first round starts when each shard has a leader.
   */
  private void createCache(LocalCluster local, CacheLedger ledger) throws IOException, InterruptedException {
    local.admin(0).postOk("/v1/caches", "{\"name\":\"" + CACHE + "\",\"shards\":" + options.shards()
        + ",\"replication_factor\":3}");
    try (CacheWriter reader = new CacheWriter(HostPort.parseList(local.bootstrap()), CACHE, ledger)) {
      reader.readBack(FIRST_WRITABLE);
    }
  }

  /** A failed round may leave a broker stopped or paused; the next round must not inherit that. */
  private void heal(Nemesis nemesis) throws InterruptedException {
    try {
      nemesis.heal();
    } catch (IOException e) {
      out.println("chaos: the cluster is not whole again after the failed round: " + e.getMessage());
    }
  }

  /** Removes a directory and everything under it (a run starts from an empty data directory). */
  static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
