package io.felix.broker.ops;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Drives {@code bin/felix local ...} from a test, exactly as a person would, on a private data directory and a
 * port range of its own. The brokers run from the test classpath ({@code FELIX_BROKER_CLASSPATH}), since the
 * tests run before Maven packages the broker jar.
 */
final class Launcher implements AutoCloseable {

  // bin/felix's ports: admin 18080+N, client 19090+N, replication 19190+N, cluster 25520+N, all + offset.
  private static final int[] BASES = {18080, 19090, 19190, 25520};

  private final Path script;
  private final Path localDir;
  private final int portOffset;

  private Launcher(Path script, Path localDir, int portOffset) {
    this.script = script;
    this.localDir = localDir;
    this.portOffset = portOffset;
  }

  static Launcher create(Path localDir, int brokers) throws IOException {
    Path script = ComposeSettings.repositoryRoot().resolve("bin/felix");
    for (int attempt = 0; attempt < 50; attempt++) {
      int offset = 1000 * ThreadLocalRandom.current().nextInt(1, 28);
      if (allFree(offset, brokers)) {
        return new Launcher(script, localDir, offset);
      }
    }
    throw new IOException("no free port range for " + brokers + " brokers");
  }

  int adminPort(int broker) {
    return BASES[0] + portOffset + broker;
  }

  int clientPort(int broker) {
    return BASES[1] + portOffset + broker;
  }

  Path localDir() {
    return localDir;
  }

  /** Runs {@code bin/felix ARGS}; returns its output, failing with that output when it exits non-zero. */
  String run(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", script.toString()));
    command.addAll(List.of(args));
    Path out = Files.createTempFile("felix-launcher-", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
    builder.environment().put("FELIX_LOCAL_DIR", localDir.toString());
    builder.environment().put("FELIX_PORT_OFFSET", Integer.toString(portOffset));
    builder.environment().put("FELIX_BROKER_CLASSPATH",
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    builder.environment().put("FELIX_BROKER_HEAP", "384m");
    // Should this JVM die before close() runs 'local down', the brokers go with it.
    builder.environment().put("FELIX_WATCH_PID", Long.toString(ProcessHandle.current().pid()));
    builder.environment().put("JAVA", Path.of(System.getProperty("java.home"), "bin", "java").toString());
    Process p = builder.start();
    if (!p.waitFor(180, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("bin/felix " + String.join(" ", args) + " did not finish in 180 s:\n" + Files.readString(out));
    }
    String output = Files.readString(out);
    Files.deleteIfExists(out);
    if (p.exitValue() != 0) {
      throw new IOException("bin/felix " + String.join(" ", args) + " exited with " + p.exitValue() + ":\n" + output
          + "\n" + logTails());
    }
    return output;
  }

  String logTails() {
    StringBuilder b = new StringBuilder();
    try (var dirs = Files.list(localDir)) {
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

  @Override
  public void close() throws IOException, InterruptedException {
    run("local", "down");
  }

  private static boolean allFree(int offset, int brokers) {
    for (int base : BASES) {
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
}
