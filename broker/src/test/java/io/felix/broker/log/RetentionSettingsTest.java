package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.ConfigFactory;
import io.felix.broker.assignment.StreamConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retention defaults as reference.conf gives them, a bad value named, and a stream's own settings over them. */
class RetentionSettingsTest {

  @Test
  void referenceConfGivesTheDocumentedDefaults() {
    RetentionSettings read = RetentionSettings.fromConfig(ConfigFactory.defaultReference().getConfig("felix.log"));
    assertEquals(RetentionSettings.defaults(), read);
    assertEquals(new RetentionSettings(604_800_000L, -1, Duration.ofSeconds(5)), read);
  }

  @Test
  void aBadValueIsRefusedNamingTheKey() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RetentionSettings.fromConfig(
        ConfigFactory.parseString("retention-ms = 0").withFallback(
            ConfigFactory.defaultReference().getConfig("felix.log"))));
    assertEquals("felix.log.retention-ms must be -1 (unlimited) or at least 1, got 0", e.getMessage());
  }

  @Test
  void aStreamsOwnSettingsReplaceOnlyTheDefaultsTheyName() {
    RetentionSettings defaults = RetentionSettings.defaults();
    assertEquals(new RetentionSettings.Retention(604_800_000L, -1, 1 << 20),
        defaults.resolve(StreamConfig.DEFAULTS, 1 << 20));
    assertEquals(new RetentionSettings.Retention(604_800_000L, 5_000, 4096),
        defaults.resolve(new StreamConfig(null, 5_000L, 4096L), 1 << 20));
  }
}
