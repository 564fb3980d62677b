package io.felix.broker.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server for tests: {@code initdb -A trust} in a temporary directory, then
 * {@code pg_ctl start} listening on 127.0.0.1 only, on a free port (another one if that is taken before the server
 * binds it), with its socket in that directory. When the
 * test runs as root (CI containers), the server runs as the {@code postgres} user, since PostgreSQL refuses root.
 * Closing stops the server and deletes the directory.
 */
public final class PrivatePostgres implements AutoCloseable {

  private static final int START_ATTEMPTS = 5;

  private final Path binDir;
  private final Path dir;
  private final boolean asPostgresUser;
  private int port; // chosen by the first start, kept by restarts (clients hold the URL)

  private PrivatePostgres(Path binDir, Path dir, boolean asPostgresUser) {
    this.binDir = binDir;
    this.dir = dir;
    this.asPostgresUser = asPostgresUser;
  }

  /** Where initdb and pg_ctl live: the PATH, else Debian's /usr/lib/postgresql/VERSION/bin (newest first). */
  public static Optional<Path> findBinaries() {
    for (String entry : System.getenv().getOrDefault("PATH", "").split(":")) {
      if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "initdb")) && Files.isExecutable(Path.of(entry, "pg_ctl"))) {
        return Optional.of(Path.of(entry));
      }
    }
    Path debian = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(debian)) {
      return Optional.empty();
    }
    try (Stream<Path> versions = Files.list(debian)) {
      return versions.map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb")) && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparingInt(b -> Integer.parseInt(b.getParent().getFileName().toString().replaceAll("\\D", "0"))));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Initializes and starts a server; the database {@code database} is created, owned by user {@code user}. */
  public static PrivatePostgres start(Path binDir, String database, String user, String password)
      throws IOException, InterruptedException, SQLException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path dir = Files.createTempDirectory("felix-pg-");
    PrivatePostgres pg = new PrivatePostgres(binDir, dir, root);
    if (root) {
      pg.run(List.of("chown", "-R", "postgres:postgres", dir.toString()), false);
    }
    pg.run(List.of(binDir.resolve("initdb").toString(), "-A", "trust", "-U", "postgres", "-E", "UTF8",
        "-D", dir.resolve("data").toString()), root);
    pg.startOnFreePort();
    try (Connection c = DriverManager.getConnection(pg.jdbcUrl("postgres"), "postgres", "");
         Statement s = c.createStatement()) {
      s.execute("CREATE USER " + user + " PASSWORD '" + password + "'");
      s.execute("CREATE DATABASE " + database + " OWNER " + user);
    }
    return pg;
  }

  /**
   * Starts the server on a port free when checked; should another process bind it before the server does, starts
   * it on another one (a bounded number of times).
   */
  private void startOnFreePort() throws IOException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      port = freePort();
      Files.deleteIfExists(serverLog()); // so a bind failure found there is this attempt's
      try {
        startServer();
        return;
      } catch (IOException e) {
        if (attempt == START_ATTEMPTS || !portWasTaken()) {
          throw e;
        }
      }
    }
  }

  private boolean portWasTaken() throws IOException {
    return Files.exists(serverLog()) && Files.readString(serverLog()).contains("could not bind");
  }

  private Path serverLog() {
    return dir.resolve("server.log");
  }

  public void startServer() throws IOException, InterruptedException {
    run(List.of(binDir.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60",
        "-l", serverLog().toString(),
        "-o", "-c listen_addresses=127.0.0.1 -p " + port + " -k " + dir + " -c fsync=on",
        "start"), asPostgresUser);
  }

  public void stopServer() throws IOException, InterruptedException {
    run(List.of(binDir.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-w", "-t", "60",
        "-m", "fast", "stop"), asPostgresUser);
  }

  public int port() {
    return port;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  private void run(List<String> command, boolean asPostgres) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (asPostgres) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    Path out = Files.createTempFile("felix-pg-cmd-", ".log");
    Process p = new ProcessBuilder(full).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("timed out: " + String.join(" ", full));
    }
    String output = Files.readString(out);
    Files.deleteIfExists(out);
    if (p.exitValue() != 0) {
      throw new IOException("'" + String.join(" ", full) + "' exited with " + p.exitValue() + ":\n" + output);
    }
  }

  @Override
  public void close() throws IOException, InterruptedException {
    try {
      stopServer();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
