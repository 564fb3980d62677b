package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal schema on an H2 file that another process holds locked, as after a kill of every broker of a local
 * cluster, when all their supervisors start them at once: the starting broker waits for the file instead of
 * exiting, up to {@code felix.persistence.open-retry-timeout}.
 */
class JournalSchemaTest {

  @TempDir Path dir;

  /** Run in a child JVM: opens the H2 file without AUTO_SERVER, so nobody else may, and holds it. */
  public static final class HoldFile {
    public static void main(String[] args) throws Exception {
      try (Connection held = DriverManager.getConnection(args[0], "sa", "")) {
        System.out.println("holding");
        System.out.flush();
        Thread.sleep(Long.parseLong(args[1]));
      }
    }
  }

  @Test
  void aBrokerWaitsForAJournalFileThatAnotherProcessHoldsLocked() throws Exception {
    String file = "jdbc:h2:file:" + dir.resolve("journal");
    Process holder = holdFor(file, 2_000);
    long started = System.nanoTime();
    JournalSchema.ensure(settings(file + ";AUTO_SERVER=TRUE", "30s"));
    long waitedMs = (System.nanoTime() - started) / 1_000_000;
    assertEquals(0, holder.waitFor());
    assertTrue(waitedMs >= 500, "the file was held while the schema was created: waited only " + waitedMs + " ms");
    try (Connection c = DriverManager.getConnection(file + ";AUTO_SERVER=TRUE", "sa", "");
        ResultSet tables = c.getMetaData().getTables(null, null, "event_journal", null)) {
      assertTrue(tables.next(), "the journal schema was created once the file was free");
    }
  }

  @Test
  void aBrokerGivesUpWithTheDatabasesReasonOnceTheRetryTimeoutIsOver() throws Exception {
    String file = "jdbc:h2:file:" + dir.resolve("journal");
    Process holder = holdFor(file, 10_000);
    try {
      IllegalStateException e = assertThrows(IllegalStateException.class,
          () -> JournalSchema.ensure(settings(file + ";AUTO_SERVER=TRUE", "1s")));
      assertTrue(e.getMessage().startsWith("cannot create the journal schema at " + file)
          && e.getMessage().contains("already in use"), e.getMessage());
      assertEquals(90020, ((SQLException) e.getCause()).getErrorCode());
    } finally {
      holder.destroyForcibly().waitFor();
    }
  }

  private static JournalSettings settings(String url, String openRetryTimeout) {
    return JournalSettings.fromConfig(ConfigFactory.parseMap(Map.of("felix.persistence.url", url,
        "felix.persistence.open-retry-timeout", openRetryTimeout)).withFallback(ConfigFactory.load()));
  }

  /** Starts a JVM holding the file for {@code millis}; returns once it holds it. */
  private static Process holdFor(String url, long millis) throws Exception {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), HoldFile.class.getName(), url, Long.toString(millis))
        .redirectErrorStream(true).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    assertEquals("holding", out.readLine());
    return process;
  }
}
