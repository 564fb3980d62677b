package io.felix.broker.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.felix.broker.client.ClientListenerSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The data plane's settings records read reference.conf and name the key of a bad value. */
class ReplicationSettingsTest {

  @Test
  void referenceConfDefaultsAreRead() {
    ReplicationSettings r = ReplicationSettings.from(ConfigFactory.load());
    assertEquals(1024 * 1024, r.fetchMaxBytes());
    assertEquals(Duration.ofMillis(250), r.fetchMaxWait());
    assertEquals(Duration.ofSeconds(10), r.produceTimeout());
    assertEquals(8 * 1024 * 1024, r.fetchSessionMaxBytes());
    assertEquals(8 * 1024 * 1024, ClientListenerSettings.from(ConfigFactory.load()).maxFrameSize());
  }

  @Test
  void aFetchTimeoutNotAboveTheLongPollIsRefusedNamingBothKeys() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplicationSettings.from(
        ConfigFactory.parseString("felix.replication.fetch-timeout = 100 ms").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("felix.replication.fetch-timeout"), e.getMessage());
    assertTrue(e.getMessage().contains("felix.replication.fetch-max-wait"), e.getMessage());
  }

  @Test
  void aSessionAnswerBoundAboveTheFrameLimitOrBelowOneShardsIsRefusedNamingTheKeys() {
    IllegalArgumentException above = assertThrows(IllegalArgumentException.class, () -> ReplicationSettings.from(
        ConfigFactory.parseString("felix.replication.fetch-session-max-bytes = 16 MiB")
            .withFallback(ConfigFactory.load())));
    assertTrue(above.getMessage().contains("felix.replication.max-frame-size"), above.getMessage());
    assertTrue(above.getMessage().contains("felix.replication.fetch-session-max-bytes"), above.getMessage());
    IllegalArgumentException below = assertThrows(IllegalArgumentException.class, () -> ReplicationSettings.from(
        ConfigFactory.parseString("felix.replication.fetch-session-max-bytes = 512 KiB")
            .withFallback(ConfigFactory.load())));
    assertTrue(below.getMessage().contains("felix.replication.fetch-max-bytes"), below.getMessage());
  }

  @Test
  void aValueOfTheWrongTypeIsRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReplicationSettings.from(
        ConfigFactory.parseString("felix.replication.produce-timeout = soon").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().contains("produce-timeout"), e.getMessage());
  }

  @Test
  void aTinyClientFrameLimitIsRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClientListenerSettings.from(
        ConfigFactory.parseString("felix.client-listener.max-frame-size = 10").withFallback(ConfigFactory.load())));
    assertTrue(e.getMessage().startsWith("felix.client-listener.max-frame-size"), e.getMessage());
  }
}
