package io.felix.broker.ops;

import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One supervised local cluster of three broker processes ({@code bin/felix local up --zones a,b,c}) that the process
 * tests asking for it share, one after another, each on streams of its own: starting and stopping three broker JVMs
 * takes longer on two cores than most of these tests' scenarios. A test method takes a {@link LocalCluster}
 * parameter and its class is {@code @ExtendWith(SharedLocalCluster.class)}; before each such test every broker must
 * be ready and listed live again (a test before may have killed or paused one, whose supervisor starts it again).
 * A test leaves every broker running or being restarted by its supervisor, never stopped on purpose. The cluster
 * goes down once every test of the run is done; its directory, with the brokers' logs, stays under
 * {@code target/} (one per test JVM) for a look after a failure.
 */
public final class SharedLocalCluster implements ParameterResolver {
  static final int BROKERS = 3;
  /** One per test JVM: the process tier runs in several at once (felix.tests.process.forks). */
  private static final Path DIR =
      Path.of("target", "shared-local-cluster-" + System.getProperty("felix.tests.fork", "1"));
  /** A broker SIGKILLed or downed by the test before is restarted by its supervisor (backoff, JVM start, join). */
  private static final Duration WHOLE_TIMEOUT = Duration.ofSeconds(240);

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalCluster.class;
  }

  @Override
  public LocalCluster resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Running running = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
        .getOrComputeIfAbsent(Running.class, key -> Running.start(), Running.class);
    try {
      awaitWhole(running.cluster);
    } catch (IOException | InterruptedException e) {
      throw new IllegalStateException("the shared local cluster is not whole before "
          + context.getRequiredTestClass().getSimpleName() + ": " + e.getMessage() + "\n"
          + running.cluster.logTails(), e);
    }
    return running.cluster;
  }

  /**
   * The broker hosting the placement singleton now: the one whose log says last that the singleton recovered on its
   * cluster address. Not the oldest process: brokers start together, and the first seed forms the cluster whichever
   * process started first.
   */
  static int singletonHost(LocalCluster cluster) throws IOException {
    int host = -1;
    String latest = "";
    for (int b = 0; b < cluster.brokers(); b++) {
      String recoveredHere = "Placement singleton recovered on pekko://felix@127.0.0.1:"
          + cluster.layout().clusterPort(b) + ":";
      try (Stream<String> lines = Files.lines(cluster.layout().brokerLog(b))) {
        Optional<String> last = lines.filter(l -> l.contains(recoveredHere)).reduce((x, y) -> y);
        // Every line starts with its time, in one format per cluster: the latest sorts last.
        if (last.isPresent() && last.get().compareTo(latest) > 0) {
          latest = last.get();
          host = b;
        }
      }
    }
    if (host < 0) {
      throw new IOException("no broker's log says the placement singleton recovered there");
    }
    return host;
  }

  /** Waits until every broker answers GET /ready and the singleton lists every broker live. */
  private static void awaitWhole(LocalCluster cluster) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + WHOLE_TIMEOUT.toNanos();
    String missing;
    while ((missing = notWhole(cluster)) != null) {
      if (System.nanoTime() > deadline) {
        throw new IOException("not whole " + WHOLE_TIMEOUT.toSeconds() + " s on: " + missing);
      }
      Thread.sleep(500);
    }
  }

  /** What keeps the cluster from being whole, or null. */
  private static String notWhole(LocalCluster cluster) throws InterruptedException {
    List<Integer> unready = new ArrayList<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      if (cluster.admin(b).status("/ready") != 200) {
        unready.add(b);
      }
    }
    if (!unready.isEmpty()) {
      return "brokers " + unready + " not ready";
    }
    try {
      String brokers = cluster.admin(0).getOk("/v1/brokers");
      int live = brokers.split("\"state\":\"live\"", -1).length - 1;
      return live == cluster.brokers() ? null : "the singleton lists " + live + " live brokers: " + brokers;
    } catch (IOException e) {
      return "GET /v1/brokers failed: " + e.getMessage();
    }
  }

  /** The running cluster, stopped when JUnit closes the root context's store (the end of the test run). */
  private record Running(LocalCluster cluster) implements AutoCloseable {
    static Running start() {
      try {
        deleteTree(DIR);
        return new Running(LocalCluster.startOnFreePorts(DIR, UpOptions.brokers(BROKERS).zones(List.of("a", "b", "c")),
            LauncherEnvironment.brokersFromTestClasspath("384m",
                // On a 2-core machine shared with other builds a restarted broker has taken over 90 s to be ready.
                "FELIX_READY_TIMEOUT", "240")));
      } catch (IOException e) {
        throw new IllegalStateException("the shared local cluster did not start: " + e.getMessage(), e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the shared local cluster", e);
      }
    }

    @Override
    public void close() throws IOException, InterruptedException {
      cluster.close();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
