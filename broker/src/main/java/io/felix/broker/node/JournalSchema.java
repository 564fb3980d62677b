package io.felix.broker.node;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates the journal's tables at broker start from the SQL that pekko-persistence-jdbc ships in its jar
 * ({@code schema/h2/h2-create-schema.sql}, {@code schema/postgres/postgres-create-schema.sql}), unless the
 * event journal table already exists. Every broker runs it; it is idempotent, and brokers starting together
 * in one JVM are serialized by a lock.
 */
public final class JournalSchema {

  private static final Logger log = LoggerFactory.getLogger(JournalSchema.class);
  private static final Object LOCK = new Object();
  /** H2's ErrorCode.DATABASE_ALREADY_OPEN_1: the file is locked by another process. */
  private static final int H2_DATABASE_ALREADY_OPEN = 90020;

  private JournalSchema() {}

  public static void ensure(JournalSettings settings) {
    if (settings.schema().isEmpty()) {
      return;
    }
    String resource = "schema/" + settings.schema() + "/" + settings.schema() + "-create-schema.sql";
    synchronized (LOCK) {
      try (Connection connection = connect(settings)) {
        if (tableExists(connection, "event_journal")) {
          return;
        }
        int applied = 0;
        for (String sql : statements(resource)) {
          try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
            applied++;
          } catch (SQLException e) {
            // Another process may have created the same object a moment ago; anything else is fatal.
            if (!e.getMessage().toLowerCase().contains("already exists")) {
              throw e;
            }
          }
        }
        log.info("Created the placement journal schema from {} ({} statements) at {}", resource, applied,
            settings.url());
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the journal schema at " + settings.url() + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Connects, waiting while another process holds the database file locked: H2's {@code AUTO_SERVER} lets one
   * process open the file and serve it to the others, but processes starting at the same instant (or after the
   * holder was killed, before H2 sees its lock as stale) are refused for a moment.
   */
  private static Connection connect(JournalSettings settings) throws SQLException {
    long deadline = System.nanoTime() + settings.openRetryTimeout().toNanos();
    boolean logged = false;
    while (true) {
      try {
        return DriverManager.getConnection(settings.url(), settings.user(), settings.password());
      } catch (SQLException e) {
        if (e.getErrorCode() != H2_DATABASE_ALREADY_OPEN || System.nanoTime() > deadline) {
          throw e;
        }
        if (!logged) {
          log.info("The journal at {} is locked by another process; retrying for up to {}", settings.url(),
              settings.openRetryTimeout());
          logged = true;
        }
        try {
          Thread.sleep(500);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static boolean tableExists(Connection connection, String table) throws SQLException {
    for (String name : new String[] {table, table.toUpperCase()}) {
      try (ResultSet rs = connection.getMetaData().getTables(null, null, name, null)) {
        if (rs.next()) {
          return true;
        }
      }
    }
    return false;
  }

  private static String[] statements(String resource) {
    try (InputStream in = JournalSchema.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("schema script " + resource + " is not on the classpath (pekko-persistence-jdbc jar)");
      }
      String script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return java.util.Arrays.stream(script.split(";"))
          .map(String::strip)
          .filter(s -> !s.isEmpty())
          .toArray(String[]::new);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + resource, e);
    }
  }
}
