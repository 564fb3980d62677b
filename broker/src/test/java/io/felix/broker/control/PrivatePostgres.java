package io.felix.broker.control;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away PostgreSQL server for one test: {@code initdb} in a temporary directory, {@code pg_ctl start} on
 * 127.0.0.1 and a free port, stopped (immediate) and deleted on close. Runs the server binaries as the
 * {@code postgres} user when the test runs as root (PostgreSQL refuses to run as root).
 */
final class PrivatePostgres implements AutoCloseable {

  private final Path dir;
  private final Path bin;
  private final int port;

  private PrivatePostgres(Path bin, Path dir, int port) {
    this.bin = bin;
    this.dir = dir;
    this.port = port;
  }

  /** The installed server's bin directory (Debian's layout), if any. */
  static Optional<Path> binaries() {
    File[] versions = new File("/usr/lib/postgresql").listFiles();
    if (versions == null) {
      return Optional.empty();
    }
    return java.util.Arrays.stream(versions)
        .map(v -> v.toPath().resolve("bin"))
        .filter(b -> Files.isExecutable(b.resolve("initdb")))
        .max(Comparator.naturalOrder());
  }

  static PrivatePostgres start(Path bin) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("felix-pg");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    PrivatePostgres pg = new PrivatePostgres(bin, dir, port);
    if (root()) {
      pg.run(List.of("chown", "-R", "postgres", dir.toString()));
    }
    pg.runAsPostgres(List.of(bin.resolve("initdb").toString(), "-A", "trust", "-U", "postgres", "-D",
        dir.resolve("data").toString()));
    pg.runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-l",
        dir.resolve("log").toString(), "-o", "-c listen_addresses=127.0.0.1 -p " + port + " -k " + dir, "start"));
    return pg;
  }

  String url() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
  }

  private static boolean root() {
    return "root".equals(System.getProperty("user.name"));
  }

  private void runAsPostgres(List<String> command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (root()) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    run(full);
  }

  private void run(List<String> command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("commands.log").toFile()).start();
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IOException(command + " failed: " + Files.readString(dir.resolve("commands.log")));
    }
  }

  @Override
  public void close() throws Exception {
    try {
      runAsPostgres(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m", "immediate",
          "stop"));
    } finally {
      try (var paths = Files.walk(dir)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }
}
