package io.felix.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BrokerSettingsTest {

  @Test
  void referenceConfDefaultsAreReadOnce() {
    BrokerSettings s = BrokerSettings.fromConfig(ConfigFactory.load());
    assertEquals(new BrokerSettings(0, Optional.empty(), 0, "127.0.0.1", Path.of("data"), 7070, 7071,
        java.time.Duration.ofHours(24), Optional.empty(), 0, Optional.empty()), s);
    assertEquals("broker-0", s.clusterRole());
  }

  @Test
  void anExternalListenerIsToldTheAdvertisedHostUnlessItHasItsOwn() {
    BrokerSettings s = BrokerSettings.fromConfig(ConfigFactory.parseString(
        "felix.broker { external-client-port = 19090, advertised-host = broker-0 }").withFallback(ConfigFactory.load()));
    assertEquals(Optional.of(new BrokerSettings.ExternalListener(19090, "broker-0", 0)), s.external());
    s = BrokerSettings.fromConfig(ConfigFactory.parseString("felix.broker { external-client-port = 0, "
        + "external-advertised-host = localhost, external-advertised-port = 29090 }").withFallback(ConfigFactory.load()));
    assertEquals(Optional.of(new BrokerSettings.ExternalListener(0, "localhost", 29090)), s.external());
    ConfigException e = assertThrows(ConfigException.class, () -> BrokerSettings.fromConfig(ConfigFactory.parseString(
        "felix.broker.external-client-port = 70000").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("felix.broker.external-client-port"), e.getMessage());
  }

  @Test
  void aNegativeBrokerIdIsRefusedNamingTheKey() {
    ConfigException e = assertThrows(ConfigException.class, () -> BrokerSettings.fromConfig(
        ConfigFactory.parseString("felix.broker.id = -1").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("felix.broker.id") && e.getMessage().contains("must be >= 0, got -1"),
        e.getMessage());
  }

  @Test
  void aPortOutOfRangeIsRefusedNamingTheKey() {
    ConfigException e = assertThrows(ConfigException.class, () -> BrokerSettings.fromConfig(
        ConfigFactory.parseString("felix.broker.replication-port = 70000").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("felix.broker.replication-port")
        && e.getMessage().contains("must be within 0..65535, got 70000"), e.getMessage());
  }
}
