package io.felix.loadgen.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A cluster of broker processes on 127.0.0.1 that the benchmark starts and stops itself: each broker is
 * {@code java -jar felix-broker.jar} with a generated config file (free ports, its own data directory, one H2
 * file journal shared by all, the placement strategy under test), like {@code bin/felix local up}.
 */
final class LocalCluster implements AutoCloseable {

  private static final String HOST = "127.0.0.1";

  record Broker(int id, Process process, int adminPort, int clientPort, Path log) {
    AdminClient admin() {
      return new AdminClient(HOST, adminPort);
    }

    String clientAddress() {
      return HOST + ":" + clientPort;
    }
  }

  private final List<Broker> brokers;

  private LocalCluster(List<Broker> brokers) {
    this.brokers = brokers;
  }

  /** Starts {@code count} brokers in zones a, b, c ... and waits until each answers GET /ready. */
  static LocalCluster start(Path brokerJar, Path dir, int count, String strategy, Duration readyTimeout)
      throws IOException, InterruptedException {
    if (!Files.isRegularFile(brokerJar)) {
      throw new IllegalArgumentException("broker jar " + brokerJar + " does not exist (build it: mvn -B -DskipTests package)");
    }
    int[][] ports = new int[count][];
    for (int i = 0; i < count; i++) {
      ports[i] = new int[] {freePort(), freePort(), freePort(), freePort()}; // admin, client, replication, cluster
    }
    StringJoiner seeds = new StringJoiner(", ");
    for (int i = 0; i < count; i++) {
      seeds.add("\"pekko://felix@" + HOST + ":" + ports[i][3] + "\"");
    }
    List<Broker> started = new java.util.concurrent.CopyOnWriteArrayList<>();
    LocalCluster cluster = new LocalCluster(started);
    // Ctrl-C or a crash of the bench must not leave broker processes behind.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> started.forEach(b -> b.process().destroy()),
        "bench-brokers-stop"));
    try {
      for (int i = 0; i < count; i++) {
        Path brokerDir = Files.createDirectories(dir.resolve("broker" + i));
        Path conf = brokerDir.resolve("broker.conf");
        Files.writeString(conf, config(i, (char) ('a' + i % 26), brokerDir, ports[i], seeds.toString(),
            dir.resolve("journal").toAbsolutePath(), strategy));
        Path log = brokerDir.resolve("broker.log");
        Process p = new ProcessBuilder(javaBinary(), "-Xms128m", "-Xmx512m", "-XX:+UseG1GC",
            "-XX:+ExitOnOutOfMemoryError", "-jar", brokerJar.toString(), conf.toAbsolutePath().toString())
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        Broker broker = new Broker(i, p, ports[i][0], ports[i][1], log);
        started.add(broker);
        // One at a time: two processes opening the shared H2 file at the same instant fail.
        await(broker, "/health", readyTimeout);
      }
      for (Broker b : started) {
        await(b, "/ready", readyTimeout);
      }
      awaitRegistered(started.get(0).admin(), count, readyTimeout);
      return cluster;
    } catch (IOException | InterruptedException | RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  private static String config(int id, char zone, Path dir, int[] ports, String seeds, Path journal, String strategy) {
    return """
        felix {
          broker { id = %d, zone = "%c", host = "%s", data-dir = "%s", client-port = %d, replication-port = %d }
          cluster { port = %d, seed-nodes = [%s] }
          persistence { url = "jdbc:h2:file:%s;AUTO_SERVER=TRUE", schema = "h2" }
          http { host = "%s", port = %d }
          control.strategy = "%s"
        }
        """.formatted(id, zone, HOST, dir.resolve("data").toAbsolutePath(), ports[1], ports[2], ports[3], seeds,
        journal, HOST, ports[0], strategy);
  }

  private static void await(Broker b, String path, Duration timeout) throws IOException, InterruptedException {
    AdminClient admin = b.admin();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (admin.status(path) != 200) {
      if (!b.process().isAlive()) {
        throw new IOException("broker " + b.id() + " exited while starting; see " + b.log());
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("broker " + b.id() + ": GET " + path + " not 200 after " + timeout.toSeconds() + " s; see "
            + b.log());
      }
      Thread.sleep(250);
    }
  }

  /**
   * Waits until the placement singleton lists {@code count} live brokers: each broker is ready once it holds a
   * table, which can be a moment before the singleton has registered them all, and a stream with replication
   * factor 3 created in that moment is refused.
   */
  private static void awaitRegistered(AdminClient admin, int count, Duration timeout)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long live = 0;
      for (var b : admin.get("/v1/brokers")) {
        live += "live".equals(b.path("state").asText()) ? 1 : 0;
      }
      if (live >= count) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the placement singleton lists " + live + " live brokers, not " + count);
      }
      Thread.sleep(250);
    }
  }

  List<Broker> brokers() {
    return brokers;
  }

  String bootstrap() {
    StringJoiner j = new StringJoiner(",");
    brokers.forEach(b -> j.add(b.clientAddress()));
    return j.toString();
  }

  /** CPU seconds (user + system) each broker process has used so far, by broker id. */
  Map<Integer, Double> cpuSeconds() {
    Map<Integer, Double> out = new TreeMap<>();
    for (Broker b : brokers) {
      out.put(b.id(), b.process().info().totalCpuDuration().map(d -> d.toNanos() / 1e9).orElse(Double.NaN));
    }
    return out;
  }

  /** Stops the brokers youngest first (SIGTERM, then SIGKILL after 20 s). */
  @Override
  public void close() throws InterruptedException {
    for (int i = brokers.size() - 1; i >= 0; i--) {
      Process p = brokers.get(i).process();
      p.destroy();
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
