package io.felix.broker.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ClientListenerSettingsTest {

  @Test
  void theDefaultLimitsAreRead() {
    ClientLimits limits = ClientListenerSettings.from(ConfigFactory.load()).limits();
    assertEquals(new ClientLimits(64L << 20, 16L << 20, 1000, 100, Duration.ofMinutes(10), 1000, 4 << 20), limits);
  }

  @Test
  void inconsistentLimitsAreRefusedNamingTheSetting() {
    IllegalArgumentException idle = assertThrows(IllegalArgumentException.class, () -> ClientListenerSettings.from(
        ConfigFactory.parseString("felix.client-listener { idle-timeout = 10s, max-fetch-wait = 30s }")
            .withFallback(ConfigFactory.load())));
    assertTrue(idle.getMessage().contains("idle-timeout (PT10S) must exceed max-fetch-wait (PT30S)"), idle.getMessage());
    IllegalArgumentException perConnection = assertThrows(IllegalArgumentException.class, () ->
        ClientListenerSettings.from(ConfigFactory.parseString(
            "felix.client-listener { max-queued-request-bytes = 1 MiB, max-in-flight-bytes-per-connection = 2 MiB }")
            .withFallback(ConfigFactory.load())));
    assertTrue(perConnection.getMessage().contains("max-in-flight-bytes-per-connection (2097152) must not exceed"),
        perConnection.getMessage());
  }
}
