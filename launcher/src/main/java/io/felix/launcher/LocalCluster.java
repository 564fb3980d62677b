package io.felix.launcher;

import io.felix.client.admin.AdminClient;
import io.felix.protocol.tls.TlsFiles;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;

/**
 * A local cluster of broker processes on 127.0.0.1: the one launcher of broker processes, behind {@code felix local},
 * the demo, the benchmarks, the fault suite and the process tests. It lives in a {@link LocalLayout} (a directory and
 * a port range) and starts processes as {@link LaunchSettings} say:
 * <ul>
 *   <li>{@link #up}: writes each broker's {@code broker.conf} ({@link BrokerConfig}), starts the placement journal's
 *       H2 server ({@link JournalProcess}), then the brokers one at a time, each once the previous answers
 *       {@code GET /health} (the first creates the journal's schema), each under a {@link Supervisor} of its own,
 *       and returns once every broker answers {@code GET /ready} and the singleton lists them all live;</li>
 *   <li>{@link #stop} and {@link #down} stop brokers on purpose (the {@code stopped} mark keeps their supervisors from
 *       restarting them; SIGTERM, SIGKILL after 20 s; youngest first, since stopping several at once can stall a
 *       singleton hand-over), {@link #kill} SIGKILLs one (its supervisor restarts it; {@link #killAndKeepDown} marks it stopped
 *       first), {@link #start} starts stopped brokers again with their old settings.</li>
 * </ul>
 * A port found taken is a {@link PortTakenException}; {@link #startOnFreePorts} retries on another range.
 */
public final class LocalCluster implements AutoCloseable {

  private final LocalLayout layout;
  private final LaunchSettings settings;
  private final PrintStream say;
  private final BrokerSupervision supervision;
  private final JournalProcess journal;

  private LocalCluster(LocalLayout layout, LaunchSettings settings, PrintStream say) {
    this.layout = layout;
    this.settings = settings;
    this.say = say;
    this.supervision = new BrokerSupervision(layout, settings, say);
    this.journal = new JournalProcess(layout, settings, say);
  }

  /** The cluster in {@code layout}, started or not; {@code say} gets one line per thing done. */
  public static LocalCluster at(LocalLayout layout, LaunchSettings settings, PrintStream say) {
    return new LocalCluster(layout, settings, say);
  }

  /**
   * A new cluster in {@code dir} (which it owns: emptied first, and again before a retry) on FELIX_PORT_OFFSET when
   * {@code environment} or this process sets one, else on a random free range; a port taken before a broker could
   * bind it means another range, up to five times. Returns once every broker is ready and registered. Its processes
   * end with this JVM (FELIX_WATCH_PID), should it die before {@link #close}.
   *
   * @param environment added to this process's for the launcher (FELIX_BROKER_CLASSPATH, FELIX_BROKER_HEAP, ...)
   */
  public static LocalCluster startOnFreePorts(Path dir, UpOptions options, Map<String, String> environment)
      throws IOException, InterruptedException {
    Map<String, String> env = new java.util.HashMap<>(environment);
    // Should this JVM die before close() runs 'down', the brokers and the journal go with it.
    env.putIfAbsent("FELIX_WATCH_PID", Long.toString(ProcessHandle.current().pid()));
    LaunchSettings settings = LaunchSettings.fromEnvironment(env);
    String configured = settings.environment().get("FELIX_PORT_OFFSET");
    for (int attempt = 1; ; attempt++) {
      // The caller's FELIX_PORT_OFFSET first (people give each run its own range), then random ranges.
      int offset = attempt == 1 && configured != null && !configured.isBlank() ? Integer.parseInt(configured.trim())
          : FreePorts.offset(options.brokers());
      deleteTree(dir); // a fresh start: the journal must not remember brokers at other addresses
      LocalCluster cluster = at(new LocalLayout(dir, offset), settings, System.out);
      try {
        cluster.up(options);
        return cluster;
      } catch (IOException | InterruptedException | RuntimeException e) {
        cluster.downAfter(e);
        if (!(e instanceof PortTakenException) || attempt == FreePorts.ATTEMPTS) {
          throw e;
        }
        System.out.println("felix: " + e.getMessage().lines().findFirst().orElse("") + "; trying other ports");
      }
    }
  }

  /** Starts a cluster as {@code options} say; fails when one is running here already. */
  public void up(UpOptions options) throws IOException, InterruptedException {
    options.cpuPerBroker().ifPresent(CpuBudget::check);
    for (int id : layout.knownBrokers()) {
      if (supervision.running(id) || supervision.supervised(id)) {
        throw new IOException("a local cluster is already running in " + layout.dir() + " (broker " + id + ", pid "
            + supervision.pid(id).map(String::valueOf).orElse("-") + "); 'felix local down' first");
      }
    }
    Files.createDirectories(layout.dir());
    if (options.tls() && !Files.exists(layout.certsDir().resolve("broker-" + (options.brokers() - 1) + ".key"))) {
      // A fresh CA per cluster directory, kept for 'local start' and the CLI; more brokers than before get a new one.
      deleteTree(layout.certsDir());
      CertificateAuthority.writeCluster(layout.certsDir(), options.brokers(), List.of(), List.of("client"),
          "felix".toCharArray());
    }
    for (int id = 0; id < options.brokers(); id++) {
      Files.createDirectories(layout.dataDir(id));
      Files.writeString(layout.configFile(id), options.config(id).render(layout));
      if (options.cpuPerBroker().isPresent()) {
        Files.writeString(layout.cpuBudgetFile(id), Double.toString(options.cpuPerBroker().getAsDouble()));
      } else {
        Files.deleteIfExists(layout.cpuBudgetFile(id));
      }
    }
    List<Integer> all = java.util.stream.IntStream.range(0, options.brokers()).boxed().toList();
    start(all);
    readiness().awaitRegistered(options.brokers());
    say.println("felix: local cluster of " + options.brokers() + " brokers is up; data in " + layout.dir());
  }

  /**
   * Starts brokers (stopped ones, with their old settings) all at once, waits for each to answer {@code /health},
   * then for them together to be ready, since a broker may be ready only once others are up. Together, not one after
   * another: a cluster restarted whole waits for every broker before it chooses new leaders
   * (felix.control.cluster-start-grace), and one broker after another left the last one 18 s behind the first with
   * 10,000 replicas each (measured 2026-12-07).
   */
  public void start(List<Integer> brokers) throws IOException, InterruptedException {
    journal.start();
    for (int id : brokers) {
      supervision.start(id);
    }
    for (int id : brokers) {
      readiness().await(id, "/health");
    }
    for (int id : brokers) {
      readiness().await(id, "/ready");
    }
  }

  public void start(int broker) throws IOException, InterruptedException {
    start(List.of(broker));
  }

  /** Stops broker N on purpose; it stays down until {@link #start}. Returns false when it was not running. */
  public boolean stop(int broker) throws IOException, InterruptedException {
    if (!Files.isRegularFile(layout.configFile(broker))) {
      throw new IOException("no broker " + broker + " in " + layout.dir());
    }
    return supervision.stop(broker);
  }

  /** SIGKILLs broker N (to try failover); its supervisor starts it again. */
  public void kill(int broker) throws IOException {
    supervision.kill(broker);
  }

  /** SIGKILLs broker N and keeps it down, as a machine that died would stay: {@link #start} brings it back. */
  public void killAndKeepDown(int broker) throws IOException {
    supervision.killAndKeepDown(broker);
  }

  /**
   * Stops every broker at once (each SIGTERMed before any is waited for), removes their CPU budgets, then stops the
   * journal. One after another, each broker's leaving would fail its shards over to the brokers still running, and
   * the cluster would start again with every leader on the last broker stopped, to be moved back shard by shard
   * (measured 2026-12-07 with 'felix bench scale': two failover waves of 3,333 and 5,000 shards during the down).
   */
  public void down() throws IOException, InterruptedException {
    Map<Integer, ProcessHandle> signalled = new TreeMap<>(Comparator.reverseOrder());
    for (int id : layout.knownBrokers()) {
      supervision.signalStop(id).ifPresent(process -> signalled.put(id, process));
    }
    for (Map.Entry<Integer, ProcessHandle> broker : signalled.entrySet()) {
      supervision.awaitStopped(broker.getKey(), broker.getValue());
    }
    for (int id : layout.knownBrokers()) {
      supervision.broker(id).forget();
    }
    int stopped = signalled.size();
    for (Path left : CpuBudget.removeAll(layout.dir())) {
      say.println("felix: cgroup " + left + " still holds processes; left in place");
    }
    say.println("felix: " + stopped + " broker(s) stopped");
    journal.stop();
  }

  /** 'local down', for try-with-resources. */
  @Override
  public void close() throws IOException, InterruptedException {
    down();
  }

  /** Each broker's pid (or stopped, or down), zone and addresses, then the replication status of a ready broker. */
  public String status() throws InterruptedException {
    if (layout.knownBrokers().isEmpty()) {
      return "no local cluster in " + layout.dir() + "\n";
    }
    StringBuilder out = new StringBuilder(addresses());
    for (int id : layout.knownBrokers()) {
      if (supervision.running(id) && adminClient(id).status("/ready") == 200) {
        try {
          out.append("\nreplication status (from broker ").append(id).append("):\n")
              .append(adminClient(id).getOk("/v1/replication-status")).append('\n');
        } catch (IOException e) {
          out.append("\n(replication status unavailable: ").append(e.getMessage()).append(")\n");
        }
        break;
      }
    }
    return out.toString();
  }

  /** A line per broker: its pid (or {@code stopped}, {@code down}), zone, client, admin and cluster address. */
  public String addresses() {
    StringBuilder out = new StringBuilder(String.format("%-7s %-8s %-6s %-22s %-22s %-22s%n", "BROKER", "PID", "ZONE",
        "CLIENT", "ADMIN", "CLUSTER"));
    for (int id : layout.knownBrokers()) {
      String state = supervision.pid(id).map(String::valueOf)
          .orElse(Files.exists(layout.stoppedMark(id)) ? "stopped" : "down");
      out.append(String.format("%-7d %-8s %-6s %-22s %-22s %-22s%n", id, state,
          BrokerConfig.Written.read(layout.configFile(id)).zone(), LocalLayout.HOST + ":" + layout.clientPort(id),
          adminUrl(id), LocalLayout.HOST + ":" + layout.clusterPort(id)));
    }
    return out.toString();
  }

  public LocalLayout layout() {
    return layout;
  }

  public Path dir() {
    return layout.dir();
  }

  /** How many brokers the cluster has (running or not). */
  public int brokers() {
    return layout.knownBrokers().size();
  }

  public int adminPort(int broker) {
    return layout.adminPort(broker);
  }

  public int clientPort(int broker) {
    return layout.clientPort(broker);
  }

  /** Broker N's Kafka listener port (a local cluster turns the Kafka listener on). */
  public int kafkaPort(int broker) {
    return layout.kafkaPort(broker);
  }

  public int replicationPort(int broker) {
    return layout.replicationPort(broker);
  }

  public int clusterPort(int broker) {
    return layout.clusterPort(broker);
  }

  /** Every broker's client address, comma-separated. */
  public String bootstrap() {
    StringJoiner j = new StringJoiner(",");
    layout.knownBrokers().forEach(b -> j.add(LocalLayout.HOST + ":" + layout.clientPort(b)));
    return j.toString();
  }

  /** Whether the brokers run under TLS ({@code local up --tls}): their admin API is then HTTPS, trusting the CA. */
  public boolean tls() {
    List<Integer> known = layout.knownBrokers();
    return !known.isEmpty() && BrokerConfig.Written.read(layout.configFile(known.get(0))).tls();
  }

  /** {@code http://127.0.0.1:PORT} of broker N's admin API, or https under TLS. */
  public String adminUrl(int broker) {
    return (tls() ? "https://" : "http://") + LocalLayout.HOST + ":" + layout.adminPort(broker);
  }

  /** A plain-HTTP client of broker N's admin API (the tests' clusters run without TLS). */
  public AdminClient admin(int broker) {
    return new AdminClient(LocalLayout.HOST, layout.adminPort(broker));
  }

  /** A client of broker N's admin API as the launcher calls it: HTTPS under TLS, with FELIX_TOKEN. */
  AdminClient adminClient(int broker) {
    SSLContext tls = tls() ? TlsFiles.clientContext(layout.caFile(), null, null) : null;
    return new AdminClient(LocalLayout.HOST, layout.adminPort(broker), tls).withToken(settings.adminToken());
  }

  /** The process id of broker N's latest process (its supervisor rewrites the pid file on a restart). */
  public long pid(int broker) throws IOException {
    return supervision.broker(broker).pid()
        .orElseThrow(() -> new IOException("broker " + broker + " has no pid file (not started, or between starts)"));
  }

  /** Whether broker N's process is running. */
  public boolean running(int broker) {
    return supervision.running(broker);
  }

  /** Sends a signal ("KILL", "STOP", "CONT") to broker N's current process. */
  public void signal(int broker, String signal) throws IOException, InterruptedException {
    long pid = pid(broker);
    Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
    String output = new String(kill.getInputStream().readAllBytes());
    if (kill.waitFor() != 0) {
      throw new IOException("kill -" + signal + " " + pid + " (broker " + broker + ") failed: " + output.trim());
    }
  }

  /** CPU seconds (user + system) each running broker has used so far, by broker id (see {@link BrokerCpu}). */
  public Map<Integer, Double> cpuSeconds() {
    BrokerCpu cpu = BrokerCpu.sample(layout);
    Map<Integer, Double> out = new TreeMap<>();
    cpu.byBroker().keySet().forEach(b -> out.put(b, cpu.seconds(b)));
    return out;
  }

  /** The last 30 lines of every broker's log, for failure messages. */
  public String logTails() {
    StringBuilder b = new StringBuilder();
    for (int id : layout.knownBrokers()) {
      b.append("--- ").append(layout.brokerLog(id)).append('\n').append(LogTail.of(layout.brokerLog(id), 30))
          .append('\n');
    }
    return b.toString();
  }

  private Readiness readiness() {
    return new Readiness(this, supervision, settings.readyTimeout());
  }

  /** Stops whatever part of the cluster started; a failure to stop is added to {@code cause}, not thrown. */
  private void downAfter(Exception cause) {
    try {
      down();
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      cause.addSuppressed(e);
    }
  }

  /**
   * Deletes every broker's data directory and the placement journal, keeping the logs; for a cluster that is down and
   * will not be started again (a benchmark's, once measured).
   */
  public void deleteData() throws IOException {
    for (int id : layout.knownBrokers()) {
      deleteTree(layout.dataDir(id));
    }
    Files.deleteIfExists(layout.journalFile());
  }

  static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }
}
