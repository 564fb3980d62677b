package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaListenerSettingsTest {

  private static Config with(Map<String, Object> values) {
    return ConfigFactory.parseMap(values).withFallback(ConfigFactory.defaultReference());
  }

  @Test
  void referenceConfDefaults() {
    KafkaListenerSettings s = KafkaListenerSettings.from(ConfigFactory.defaultReference());
    assertFalse(s.enabled(), "off in a bare broker");
    assertEquals(9092, s.port());
    assertEquals(KafkaListenerMode.DIRECT, s.mode());
    assertEquals("felix", s.clusterId());
    assertEquals(100 * 1024 * 1024, s.maxFrameSize());
    assertEquals(Duration.ofMillis(300), s.initialRebalanceDelay());
  }

  @Test
  void badValuesAreRefusedNamingTheSetting() {
    assertEquals("felix.kafka-listener.mode must be direct or forward, got 'sideways'",
        assertThrows(IllegalArgumentException.class, () -> KafkaListenerSettings.from(
            with(Map.of("felix.kafka-listener.mode", "sideways")))).getMessage());
    assertEquals("felix.kafka-listener.port must be 0..65535, got 70000",
        assertThrows(IllegalArgumentException.class, () -> KafkaListenerSettings.from(
            with(Map.of("felix.kafka-listener.port", 70000)))).getMessage());
    assertThrows(IllegalArgumentException.class, () -> KafkaListenerSettings.from(
        with(Map.of("felix.kafka-listener.min-session-timeout", "10m"))));
    assertEquals(KafkaListenerMode.FORWARD, KafkaListenerSettings.from(
        with(Map.of("felix.kafka-listener.mode", "Forward"))).mode());
  }
}
