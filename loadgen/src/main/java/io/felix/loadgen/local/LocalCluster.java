package io.felix.loadgen.local;

import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A local cluster of broker processes started by {@code bin/felix local up}, the one launcher of broker processes
 * (configs, ports, data directories, readiness, stopping), on a data directory and a port range of its own.
 * This class only picks the port range and retries: {@code bin/felix} uses fixed ports (admin 18080+N, client
 * 19090+N, replication 19190+N, cluster 25520+N) shifted by {@code FELIX_PORT_OFFSET}, and a range free when
 * checked can be taken before a broker binds it; then {@code bin/felix} exits with {@link #PORT_TAKEN} and the
 * cluster is started again, from an empty directory, on another range.
 */
public final class LocalCluster implements AutoCloseable, LoopbackPartition.BrokerPorts {

  /** {@code bin/felix}'s exit status when a broker port is taken (see its header). */
  public static final int PORT_TAKEN = 3;

  private static final String HOST = "127.0.0.1";
  // admin, client, replication, cluster, journal (one), Kafka listener
  private static final int[] PORT_BASES = {18080, 19090, 19190, 25520, 19290, 9092};
  private static final int ATTEMPTS = 5;
  // Only a backstop against a hung script: bin/felix bounds each of its waits (FELIX_READY_TIMEOUT per broker), and
  // a caller that raises those must not be cut short here.
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(15);

  /** {@code bin/felix} failed; {@link #exitStatus()} tells why ({@link #PORT_TAKEN}: a port was taken). */
  public static final class LauncherException extends IOException {
    private final int exitStatus;

    LauncherException(String message, int exitStatus) {
      super(message);
      this.exitStatus = exitStatus;
    }

    public int exitStatus() {
      return exitStatus;
    }
  }

  private final Path script;
  private final Path dir;
  private final int brokers;
  private final Map<String, String> environment;
  private int portOffset;

  private LocalCluster(Path script, Path dir, int brokers, Map<String, String> environment) {
    this.script = script;
    this.dir = dir;
    this.brokers = brokers;
    this.environment = Map.copyOf(environment);
  }

  /**
   * Runs {@code bin/felix local up --brokers N UP-OPTIONS} in {@code dir} (which this cluster owns: it is emptied
   * before a retry) and returns once every broker is ready and registered.
   *
   * @param environment added to {@code bin/felix}'s environment (e.g. FELIX_BROKER_CLASSPATH, FELIX_BROKER_HEAP)
   */
  public static LocalCluster up(Path script, Path dir, int brokers, List<String> upOptions,
      Map<String, String> environment) throws IOException, InterruptedException {
    LocalCluster cluster = new LocalCluster(script, dir, brokers, environment);
    List<String> args = new ArrayList<>(List.of("local", "up", "--brokers", Integer.toString(brokers)));
    args.addAll(upOptions);
    String configured = System.getenv("FELIX_PORT_OFFSET");
    for (int attempt = 1; ; attempt++) {
      // The caller's FELIX_PORT_OFFSET first (people give each run its own range), then random ranges.
      cluster.portOffset = attempt == 1 && configured != null && !configured.isBlank()
          ? Integer.parseInt(configured.trim()) : freeOffset(brokers);
      try {
        cluster.run(args.toArray(String[]::new));
        return cluster;
      } catch (IOException | InterruptedException | RuntimeException e) {
        cluster.closeAfter(e);
        boolean portTaken = e instanceof LauncherException l && l.exitStatus() == PORT_TAKEN;
        if (!portTaken || attempt == ATTEMPTS) {
          throw e;
        }
        deleteTree(dir); // a fresh start: the journal must not remember brokers at the old addresses
      }
    }
  }

  /** {@code bin/felix} beside this code: FELIX_HOME, else the first directory upward holding bin/felix. */
  public static Path findScript() {
    String home = System.getenv("FELIX_HOME");
    if (home != null && !home.isBlank()) {
      return Path.of(home, "bin", "felix");
    }
    Path codeSource = Path.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator)[0]);
    for (Path start : List.of(Path.of("").toAbsolutePath(), codeSource.toAbsolutePath())) {
      for (Path d = start; d != null; d = d.getParent()) {
        if (Files.isRegularFile(d.resolve("bin/felix"))) {
          return d.resolve("bin/felix");
        }
      }
    }
    throw new IllegalStateException("bin/felix not found above " + Path.of("").toAbsolutePath()
        + " nor above " + codeSource + "; set FELIX_HOME to the Felix checkout");
  }

  /** Runs {@code bin/felix ARGS} on this cluster; returns its output, throwing with it on a non-zero exit. */
  public String run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile("felix-launcher-", ".log");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
      Map<String, String> env = new HashMap<>(environment);
      env.put("FELIX_LOCAL_DIR", dir.toAbsolutePath().toString());
      env.put("FELIX_PORT_OFFSET", Integer.toString(portOffset));
      env.putIfAbsent("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
      // Should this JVM die before close() runs 'local down', the brokers go with it.
      env.put("FELIX_WATCH_PID", Long.toString(ProcessHandle.current().pid()));
      builder.environment().putAll(env);
      Process p = builder.start();
      String what = "bin/felix " + String.join(" ", args);
      if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(what + " did not finish in " + COMMAND_TIMEOUT.toSeconds() + " s:\n" + Files.readString(out));
      }
      String output = Files.readString(out);
      if (p.exitValue() != 0) {
        throw new LauncherException(what + " exited with " + p.exitValue() + ":\n" + output + "\n" + logTails(),
            p.exitValue());
      }
      return output;
    } finally {
      Files.deleteIfExists(out);
    }
  }

  public Path dir() {
    return dir;
  }

  public int adminPort(int broker) {
    return PORT_BASES[0] + portOffset + broker;
  }

  public int clientPort(int broker) {
    return PORT_BASES[1] + portOffset + broker;
  }

  /** Broker N's Kafka listener port (bin/felix local turns the Kafka listener on). */
  public int kafkaPort(int broker) {
    return PORT_BASES[5] + portOffset + broker;
  }

  /** Broker N's broker-to-broker replication port. */
  public int replicationPort(int broker) {
    return PORT_BASES[2] + portOffset + broker;
  }

  /** Broker N's Pekko cluster (Artery) port: its members' addresses in the brokers' logs name it. */
  public int clusterPort(int broker) {
    return PORT_BASES[3] + portOffset + broker;
  }

  public AdminClient admin(int broker) {
    return new AdminClient(HOST, adminPort(broker));
  }

  /** Every broker's client address, comma-separated. */
  public String bootstrap() {
    StringJoiner j = new StringJoiner(",");
    for (int b = 0; b < brokers; b++) {
      j.add(HOST + ":" + clientPort(b));
    }
    return j.toString();
  }

  /** CPU seconds (user + system) each running broker process has used so far, by broker id. */
  public Map<Integer, Double> cpuSeconds() throws IOException {
    Map<Integer, Double> out = new TreeMap<>();
    for (int b = 0; b < brokers; b++) {
      out.put(b, ProcessHandle.of(pid(b)).flatMap(h -> h.info().totalCpuDuration())
          .map(d -> d.toNanos() / 1e9).orElse(Double.NaN));
    }
    return out;
  }

  public int brokers() {
    return brokers;
  }

  /** The process id in broker N's pid file (its latest process; its supervisor rewrites it on a restart). */
  public long pid(int broker) throws IOException {
    return Long.parseLong(Files.readString(dir.resolve("broker" + broker).resolve("broker.pid")).trim());
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

  /** The last 30 lines of every broker's log, for failure messages. */
  public String logTails() {
    StringBuilder b = new StringBuilder();
    if (!Files.isDirectory(dir)) {
      return "";
    }
    try (Stream<Path> dirs = Files.list(dir)) {
      for (Path d : dirs.filter(Files::isDirectory).sorted().toList()) {
        Path log = d.resolve("broker.log");
        if (Files.exists(log)) {
          List<String> lines = Files.readAllLines(log);
          b.append("--- ").append(log).append('\n')
              .append(String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()))).append('\n');
        }
      }
    } catch (IOException e) {
      b.append("(logs unreadable: ").append(e.getMessage()).append(")");
    }
    return b.toString();
  }

  /** {@code bin/felix local down}: SIGTERM youngest first, SIGKILL after 20 s. */
  @Override
  public void close() throws IOException, InterruptedException {
    run("local", "down");
  }

  /** Stops whatever part of the cluster started; a failure to stop is added to {@code cause}, not thrown. */
  private void closeAfter(Exception cause) {
    try {
      close();
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      cause.addSuppressed(e);
    }
  }

  /** A multiple of 1000 (so the four port ranges never overlap) whose ports are all free right now. */
  private static int freeOffset(int brokers) throws IOException {
    for (int tries = 0; tries < 50; tries++) {
      int offset = 1000 * ThreadLocalRandom.current().nextInt(1, 28);
      if (allFree(offset, brokers)) {
        return offset;
      }
    }
    throw new IOException("no free port range for " + brokers + " brokers");
  }

  private static boolean allFree(int offset, int brokers) {
    for (int base : PORT_BASES) {
      for (int i = 0; i < brokers; i++) {
        try (ServerSocket s = new ServerSocket(base + offset + i, 1, InetAddress.getLoopbackAddress())) {
          s.setReuseAddress(true);
        } catch (IOException inUse) {
          return false;
        }
      }
    }
    return true;
  }

  private static void deleteTree(Path root) throws IOException {
    if (Files.exists(root)) {
      try (Stream<Path> files = Files.walk(root)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
