package io.felix.broker.node;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.util.Set;

/** The placement journal's database, from {@code felix.persistence}. */
public record JournalSettings(
    String url, String user, String password, String driver, String profile, String schema, int maxConnections) {

  private static final Set<String> SCHEMAS = Set.of("", "h2", "postgres");

  public JournalSettings {
    if (!url.startsWith("jdbc:")) {
      throw new ConfigException.BadValue("felix.persistence.url", "must be a JDBC URL, got " + url);
    }
    if (!SCHEMAS.contains(schema)) {
      throw new ConfigException.BadValue("felix.persistence.schema", "must be h2, postgres or empty, got " + schema);
    }
    if (maxConnections < 1) {
      throw new ConfigException.BadValue("felix.persistence.max-connections", "must be >= 1, got " + maxConnections);
    }
  }

  public static JournalSettings fromConfig(Config config) {
    Config c = config.getConfig("felix.persistence");
    return new JournalSettings(
        c.getString("url"), c.getString("user"), c.getString("password"), c.getString("driver"),
        c.getString("profile"), c.getString("schema"), c.getInt("max-connections"));
  }
}
