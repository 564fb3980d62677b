package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.felix.broker.config.BrokerSettings;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** System properties over FELIX_* variables over the file over reference.conf, each key from the first that sets it. */
class BrokerConfigLayersTest {

  private static final Config FILE = ConfigFactory.parseString("""
      felix.http.port = 8080
      felix.broker.client-port = 9090
      felix.broker.zone = "file-zone"
      felix.broker.host = "file-host"
      """);

  private static Config full(Properties properties, Map<String, String> env) {
    return BrokerConfigLayers.of(properties, env, FILE).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  void aSystemPropertyBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsReferenceConf() {
    Properties properties = new Properties();
    properties.setProperty("felix.http.port", "8081");
    properties.setProperty("java.vendor.url", "ignored: only felix.* and pekko.* are taken");
    Map<String, String> env = Map.of("FELIX_ADMIN_PORT", "8082", "FELIX_CLIENT_PORT", "9091", "FELIX_ZONE", "env-zone",
        "FELIX_SEED_NODES", "pekko://felix@a:1, pekko://felix@b:2", "FELIX_JOURNAL_USER", "felix");
    Config config = full(properties, env);
    assertEquals(8081, config.getInt("felix.http.port"), "-D over FELIX_ADMIN_PORT over the file");
    assertEquals(9091, config.getInt("felix.broker.client-port"), "FELIX_CLIENT_PORT over the file");
    assertEquals("env-zone", config.getString("felix.broker.zone"));
    assertEquals("file-host", config.getString("felix.broker.host"), "the file over reference.conf");
    assertEquals(List.of("pekko://felix@a:1", "pekko://felix@b:2"), config.getStringList("felix.cluster.seed-nodes"));
    assertEquals("felix", config.getString("felix.persistence.user"));
    assertEquals(7071, config.getInt("felix.broker.replication-port"), "reference.conf when no layer sets it");
    assertFalse(BrokerConfigLayers.of(properties, env, FILE).hasPath("java"), "only felix.* and pekko.* properties");
    BrokerSettings broker = BrokerSettings.fromConfig(config);
    assertEquals(9091, broker.clientPort());
  }

  @Test
  void everyVariableNamesAKeyOfReferenceConf() {
    Config reference = ConfigFactory.defaultReference();
    for (BrokerConfigLayers.Variable v : BrokerConfigLayers.Variable.values()) {
      assertEquals(true, reference.hasPathOrNull(v.key()), v + " -> " + v.key());
    }
  }
}
