package io.felix.broker.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.broker.config.ConfigChecks;
import java.time.Duration;
import java.util.Set;

/**
 * The placement journal's database, from {@code felix.persistence}.
 *
 * <p>An H2 file journal (opened in the broker or by an H2 server) gets {@code WRITE_DELAY=0}: H2 otherwise writes
 * committed transactions up to 500 ms later, so a SIGKILL of the process hosting the database would lose events the journal already acknowledged (and the
 * singleton already acted on). A URL that asks for a write delay is refused.
 */
public record JournalSettings(
    String url, String user, String password, String driver, String profile, String schema, int maxConnections,
    Duration openRetryTimeout) {

  private static final Set<String> SCHEMAS = Set.of("", "h2", "postgres");

  public JournalSettings {
    if (!url.startsWith("jdbc:")) {
      throw new ConfigException.BadValue("felix.persistence.url", "must be a JDBC URL, got " + url);
    }
    if (isH2File(url)) {
      String delay = h2Setting(url, "WRITE_DELAY");
      if (delay == null) {
        url = url + ";WRITE_DELAY=0";
      } else if (!delay.equals("0")) {
        throw new ConfigException.BadValue("felix.persistence.url", "WRITE_DELAY must be 0 (or left out) for an H2 "
            + "file journal: with a delay, a killed process loses events already acknowledged; got WRITE_DELAY="
            + delay);
      }
    }
    if (!SCHEMAS.contains(schema)) {
      throw new ConfigException.BadValue("felix.persistence.schema", "must be h2, postgres or empty, got " + schema);
    }
    if (maxConnections < 1) {
      throw new ConfigException.BadValue("felix.persistence.max-connections", "must be >= 1, got " + maxConnections);
    }
    ConfigChecks.positive("felix.persistence.open-retry-timeout", openRetryTimeout);
  }

  /** An H2 in-memory database lives inside one JVM: brokers in other processes cannot share it. */
  public boolean inMemory() {
    return url.startsWith("jdbc:h2:mem:");
  }

  /** A file H2 opens itself, or one an H2 server opens for it (tcp, ssl: a local cluster's journal server). */
  private static boolean isH2File(String url) {
    return url.startsWith("jdbc:h2:") && !url.startsWith("jdbc:h2:mem:");
  }

  /** The value of an H2 URL setting ({@code ;NAME=value}, case-insensitive name), null when absent. */
  private static String h2Setting(String url, String name) {
    for (String part : url.split(";")) {
      int eq = part.indexOf('=');
      if (eq > 0 && part.substring(0, eq).trim().equalsIgnoreCase(name)) {
        return part.substring(eq + 1).trim();
      }
    }
    return null;
  }

  public static JournalSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.persistence");
    return new JournalSettings(
        c.getString("url"), c.getString("user"), c.getString("password"), c.getString("driver"),
        c.getString("profile"), c.getString("schema"), c.getInt("max-connections"), c.getDuration("open-retry-timeout"));
  }
}
