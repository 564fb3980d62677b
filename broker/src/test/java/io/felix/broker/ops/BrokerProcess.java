package io.felix.broker.ops;

import io.felix.broker.node.BrokerMain;
import io.felix.client.admin.AdminClient;
import io.felix.launcher.BrokerJvm;
import io.felix.launcher.LaunchSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One broker as its own operating-system process ({@code io.felix.broker.node.BrokerMain} on the test classpath,
 * which holds the same classes as the shaded jar), with its output in a log file: the compose tests' brokers, which
 * take their settings from a FELIX_* environment rather than a local cluster's layout. Its command line comes from
 * the launcher's {@link BrokerJvm}, as every local broker's does. Tests stop it gracefully (SIGTERM: Pekko leaves the
 * cluster) or kill it (SIGKILL: nothing runs, as in a crash), and start it again with the same settings.
 */
final class BrokerProcess implements AutoCloseable {
  /** Light for a test: a small heap, the serial collector, no C2 compiler (the machine runs several brokers). */
  private static final BrokerJvm JVM = BrokerJvm.local(LaunchSettings.thisJava(),
      BrokerJvm.Code.classpath(LaunchSettings.ownClasspath()), "384m")
      .withOptions(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:+ExitOnOutOfMemoryError"));

  private final int id;
  private final int adminPort;
  private final int externalClientPort;
  private final Map<String, String> environment;
  private final Path configFile;
  private final Path log;
  private Process process;
  private int restartsWhenDowned;

  /**
   * @param environment variables added to the child's environment (the compose file's FELIX_* settings)
   * @param configFile the config file BrokerMain reads (its first argument)
   */
  BrokerProcess(int id, int adminPort, Map<String, String> environment, Path configFile, Path log) {
    this(id, adminPort, 0, environment, configFile, log);
  }

  /** @param externalClientPort the port its environment gives the external client listener (0: none) */
  BrokerProcess(int id, int adminPort, int externalClientPort, Map<String, String> environment, Path configFile,
      Path log) {
    this.id = id;
    this.adminPort = adminPort;
    this.externalClientPort = externalClientPort;
    this.environment = Map.copyOf(environment);
    this.configFile = configFile;
    this.log = log;
  }

  /**
   * Acts as compose's {@code restart: unless-stopped} and bin/felix's supervisor do for a broker the cluster downed
   * (a busy machine can starve its failure detector): up to {@code times} exits with {@link BrokerMain#EXIT_DOWNED}
   * are met with a start, while waiting for the broker.
   */
  BrokerProcess restartWhenDowned(int times) {
    restartsWhenDowned = times;
    return this;
  }

  int id() {
    return id;
  }

  int adminPort() {
    return adminPort;
  }

  int externalClientPort() {
    return externalClientPort;
  }

  long pid() {
    return process.pid();
  }

  boolean alive() {
    return process != null && process.isAlive();
  }

  BrokerProcess start() throws IOException {
    ProcessBuilder builder = new ProcessBuilder(JVM.command(configFile))
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    process = builder.start();
    return this;
  }

  /** Waits until GET /ready answers 200, failing early (with the log's tail) if the process exits. */
  void awaitReady(Duration timeout) throws IOException, InterruptedException {
    await("/ready", timeout);
  }

  /** Waits until GET /health answers 200: the process is up, its journal schema checked. */
  void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
    await("/health", timeout);
  }

  private void await(String path, Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive() && process.exitValue() == BrokerMain.EXIT_DOWNED && restartsWhenDowned > 0) {
        restartsWhenDowned--;
        System.err.println("broker " + id + " was downed by the cluster and exited; starting it again, as its"
            + " supervisor would");
        start();
      }
      if (!process.isAlive()) {
        throw new IllegalStateException("broker " + id + " exited with " + process.exitValue() + ":\n" + logTail());
      }
      if (AdminClient.local(adminPort).status(path) == 200) {
        return;
      }
      Thread.sleep(250);
    }
    throw new IllegalStateException("broker " + id + ": GET " + path + " not 200 within " + timeout + ":\n"
        + logTail());
  }

  /** SIGTERM and wait for the JVM's shutdown (Pekko's coordinated shutdown leaves the cluster). */
  void stop() throws InterruptedException {
    if (alive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  /** SIGKILL: the broker gets no chance to flush, leave or say goodbye. */
  void kill() throws InterruptedException {
    if (alive()) {
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** True when the log says the broker could not bind one of its ports (taken since it was picked free). */
  boolean portWasTaken() {
    try {
      return Files.readString(log).lines().anyMatch(l -> l.contains("cannot bind") || l.contains("Failed to bind")
          || l.contains("BindException") || l.contains("Address already in use"));
    } catch (IOException e) {
      return false;
    }
  }

  String logTail() {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
