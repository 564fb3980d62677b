package io.felix.cli;

import io.felix.launcher.CpuBudget;
import io.felix.launcher.LaunchSettings;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.LocalLayout;
import io.felix.launcher.PlacementStrategy;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code felix local up|status|down|stop|kill|start}: a local cluster of broker processes on 127.0.0.1 (the launcher's
 * {@link LocalCluster}), in FELIX_LOCAL_DIR (default {@code data/local} of the checkout) on the ports of
 * FELIX_PORT_OFFSET. What it did goes to stderr ({@code felix: ...}), what it shows to stdout.
 */
@Command(name = "local", mixinStandardHelpOptions = true,
    description = {"A local cluster of broker processes on 127.0.0.1, each under a supervisor of its own that starts "
        + "it again when it exits without a deliberate stop.",
        "Data, configs and logs in FELIX_LOCAL_DIR (default data/local); ports admin 18080+N, client 19090+N, "
            + "replication 19190+N, Pekko cluster 25520+N, journal 19290, shifted by FELIX_PORT_OFFSET."})
final class LocalCommand {

  @Spec
  CommandSpec spec;

  @Command(name = "up", mixinStandardHelpOptions = true,
      description = "Starts N broker processes and the placement journal, waits until every broker is ready and "
          + "registered, prints their addresses and a bootstrap list.")
  int up(
      @Option(names = "--brokers", defaultValue = "3", description = "default ${DEFAULT-VALUE}") int brokers,
      @Option(names = "--zones", defaultValue = "a,b,c", split = ",", paramLabel = "ZONE[,ZONE...]",
          description = "given to the brokers in turn (default ${DEFAULT-VALUE})") List<String> zones,
      @Option(names = "--strategy", defaultValue = "stream-aware", paramLabel = "stream-aware|cluster-share",
          description = "the placement strategy (default ${DEFAULT-VALUE})") String strategy,
      @Option(names = "--cpu-per-broker", paramLabel = "CORES",
          description = "each broker in a Linux cgroup of its own with this CPU quota (needs a writable cgroup "
              + "hierarchy, usually root); commands run beside it stay outside every budget") Double cpuPerBroker,
      @Option(names = "--tls", description = "TLS on every listener, with a CA and certificates made in "
          + "FELIX_LOCAL_DIR/certs (the CLI then trusts that CA)") boolean tls)
      throws CommandFailure, IOException, InterruptedException {
    UpOptions options;
    try {
      options = new UpOptions(Ranges.within(spec, "--brokers", brokers, 1, LocalLayout.MAX_BROKERS), zones,
          PlacementStrategy.fromWireName(strategy), cpuPerBroker == null ? OptionalDouble.empty()
          : OptionalDouble.of(cpuPerBroker), tls);
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, e.getMessage());
    }
    if (cpuPerBroker != null && !(cpuPerBroker >= CpuBudget.MIN_CORES)) {
      throw Ranges.usage(spec, "--cpu-per-broker must be a number of cores of at least " + CpuBudget.MIN_CORES
          + ", like 0.5 or 2, got " + cpuPerBroker);
    }
    LocalCluster cluster = cluster();
    try {
      cluster.up(options);
    } catch (IllegalArgumentException refused) {
      throw new CommandFailure(refused.getMessage());
    }
    out().print(cluster.addresses());
    out().println("bootstrap: " + cluster.bootstrap());
    out().flush();
    return 0;
  }

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Each broker's pid (or stopped, or down), zone and addresses, then GET /v1/replication-status.")
  int status() throws CommandFailure, InterruptedException {
    out().print(cluster().status());
    out().flush();
    return 0;
  }

  @Command(name = "down", mixinStandardHelpOptions = true,
      description = "Stops every broker (SIGTERM, youngest first; SIGKILL after 20 s), then the journal.")
  int down() throws CommandFailure, IOException, InterruptedException {
    cluster().down();
    return 0;
  }

  @Command(name = "stop", mixinStandardHelpOptions = true,
      description = "Stops one broker on purpose (SIGTERM, SIGKILL after 20 s); it stays down until 'local start'.")
  int stop(@Parameters(paramLabel = "BROKER") int broker) throws CommandFailure, IOException, InterruptedException {
    if (!cluster().stop(broker)) {
      say("broker " + broker + " was not running");
    }
    say("broker " + broker + " stays stopped until 'felix local start " + broker + "'");
    return 0;
  }

  @Command(name = "kill", mixinStandardHelpOptions = true,
      description = "SIGKILLs one broker, to try failover by hand; its supervisor starts it again.")
  int kill(@Parameters(paramLabel = "BROKER") int broker) throws CommandFailure, IOException {
    cluster().kill(broker);
    return 0;
  }

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = "Starts stopped brokers again with their old settings and waits until each is ready.")
  int start(@Parameters(paramLabel = "BROKER", arity = "1..*") List<Integer> brokers)
      throws CommandFailure, IOException, InterruptedException {
    cluster().start(brokers);
    for (int broker : brokers) {
      say("broker " + broker + " is ready");
    }
    return 0;
  }

  /** The local cluster of this command's environment; a bad FELIX_* value fails the command naming it. */
  private LocalCluster cluster() throws CommandFailure {
    return of(spec);
  }

  static LocalCluster of(CommandSpec spec) throws CommandFailure {
    Map<String, String> env = Felix.of(spec).environment();
    try {
      return LocalCluster.at(LocalLayout.fromEnvironment(env), LaunchSettings.of(env), Felix.of(spec).err());
    } catch (IllegalArgumentException e) {
      throw new CommandFailure(e.getMessage());
    }
  }

  private PrintWriter out() {
    return spec.commandLine().getOut();
  }

  private void say(String message) {
    Felix.of(spec).err().println("felix: " + message);
  }
}
