package io.felix.cli;

import io.felix.client.admin.AdminClient;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.LocalLayout;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code felix demo [--seconds 10]}: from nothing, three broker processes in zones a, b, c (a fresh FELIX_LOCAL_DIR
 * every time), the streams of docs/placement.md's benchmark, their leaders per broker, then a load in each client
 * mode ({@code felix perf produce --broker-cpu}: throughput, latency, each broker's CPU), the leaders again, and the
 * cluster stopped (also on Ctrl-C); configs and logs stay, the segments go.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "From nothing: 3 brokers, streams, load in both client modes, figures; then stops the cluster.")
final class DemoCommand implements Callable<Integer> {
  /** The streams of the placement benchmark, in its order, with their shards (replication factor 3). */
  private static final Map<String, Integer> STREAMS = new LinkedHashMap<>();

  static {
    STREAMS.put("perf-leader", 12);
    STREAMS.put("perf-all", 12);
    STREAMS.put("perf-plain", 12);
    STREAMS.put("cache", 13);
    STREAMS.put("perf-quorum", 12);
  }

  @Spec
  CommandSpec spec;

  @Option(names = "--seconds", defaultValue = "10", description = "each load's duration (default ${DEFAULT-VALUE})")
  int seconds;

  private volatile boolean finished;

  @Override
  public Integer call() throws Exception {
    Ranges.within(spec, "--seconds", seconds, 1, 3600);
    LocalCluster cluster = LocalCommand.of(spec);
    LocalLayout layout = cluster.layout();
    for (int broker : layout.knownBrokers()) {
      if (cluster.running(broker)) {
        throw new CommandFailure("a local cluster is already running in " + layout.dir() + "; 'felix local down' "
            + "first (the demo starts its own)");
      }
    }
    deleteTree(layout.dir()); // from nothing: a fresh directory every time
    PrintStream out = Felix.out(spec);
    Thread stopper = new Thread(() -> stop(cluster), "demo-stop");
    Runtime.getRuntime().addShutdownHook(stopper); // Ctrl-C
    try {
      cluster.up(UpOptions.brokers(3));
      out.print(cluster.addresses());
      out.println("bootstrap: " + cluster.bootstrap());
      AdminClient admin = new AdminClient(LocalLayout.HOST, layout.adminPort(0));
      out.println();
      out.println("== creating streams in the benchmark order of docs/placement.md (replication factor 3)");
      for (Map.Entry<String, Integer> s : STREAMS.entrySet()) {
        admin.createStream(s.getKey(), s.getValue(), 3);
        Felix.of(spec).err().println("felix: created stream " + s.getKey() + " (" + s.getValue()
            + " shards, replication factor 3)");
      }
      out.println();
      out.println("== leaders per broker, per stream (GET /v1/replication-status)");
      out.println(admin.getOk("/v1/replication-status"));
      int status = load("cluster", cluster.bootstrap(), out);
      status = Math.max(status, load("plain", LocalLayout.HOST + ":" + layout.clientPort(0), out));
      out.println();
      out.println("== leaders per broker after the load");
      out.println(admin.getOk("/v1/replication-status"));
      out.println();
      return status;
    } finally {
      stop(cluster);
      try {
        Runtime.getRuntime().removeShutdownHook(stopper);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs (or ran) stop, which runs once
      }
    }
  }

  /** One load: {@code felix perf produce} to perf-quorum in MODE, with the brokers' CPU. */
  private int load(String mode, String bootstrap, PrintStream out) {
    out.println();
    out.println("== produce to perf-quorum in " + mode + " mode for " + seconds + "s (1 KiB records, acks quorum, 4 "
        + "producers)");
    Felix felix = Felix.of(spec);
    return Felix.run(new String[] {"perf", "produce", "--bootstrap", bootstrap, "--stream", "perf-quorum", "--mode",
        mode, "--record-size", "1024", "--rate", "0", "--duration", seconds + "s", "--producers", "4", "--acks",
        "quorum", "--broker-cpu"}, felix.in(), out, felix.err(), felix.environment());
  }

  /** Stops the cluster, then drops its segments (gigabytes after the load); configs and logs stay for reading. */
  private synchronized void stop(LocalCluster cluster) {
    if (finished) {
      return;
    }
    finished = true;
    PrintStream err = Felix.of(spec).err();
    err.println();
    err.println("felix: stopping the demo cluster");
    try {
      cluster.down();
      for (int broker : cluster.layout().knownBrokers()) {
        deleteTree(cluster.layout().dataDir(broker));
      }
    } catch (IOException e) {
      err.println("felix: stopping the demo cluster failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
