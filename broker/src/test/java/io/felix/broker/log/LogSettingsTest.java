package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class LogSettingsTest {
  static Config withOverride(String hocon) {
    return ConfigFactory.parseString(hocon).withFallback(ConfigFactory.defaultReference()).getConfig("felix.log");
  }

  @Test
  void referenceConfGivesTheDefaults() {
    LogSettings settings = LogSettings.fromConfig(ConfigFactory.defaultReference().getConfig("felix.log"));
    assertEquals(LogSettings.defaults(), settings);
    assertEquals(128L * 1024 * 1024, settings.segmentBytes());
    assertEquals(LogSettings.Flush.ALWAYS, settings.flush());
    assertEquals(Duration.ofSeconds(5), settings.reopenInterval());
    assertEquals(LogSettings.VerifyOnOpen.ALL, settings.verifyOnOpen());
    assertEquals(Duration.ofSeconds(60), settings.idleFileClose());
  }

  @Test
  void overridesAreRead() {
    LogSettings settings = LogSettings.fromConfig(withOverride(
        "felix.log { flush = interval, flush-interval = 2s, flush-threads = 1, verify-on-open = unflushed, "
            + "idle-file-close = 0 }"));
    assertEquals(LogSettings.Flush.INTERVAL, settings.flush());
    assertEquals(Duration.ofSeconds(2), settings.flushInterval());
    assertEquals(1, settings.flushThreads());
    assertEquals(LogSettings.VerifyOnOpen.UNFLUSHED, settings.verifyOnOpen());
    assertEquals(Duration.ZERO, settings.idleFileClose());
  }

  @Test
  void badValuesAreRejectedNamingTheKey() {
    assertEquals("felix.log.flush must be always or interval, got 'sometimes'",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.flush = sometimes"))).getMessage());
    assertEquals("felix.log.segment-bytes must be between 65 and 2147483647 bytes, got 10",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.segment-bytes = 10"))).getMessage());
    assertEquals("felix.log.segment-bytes must be between 65 and 2147483647 bytes, got 4294967296",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.segment-bytes = 4 GiB"))).getMessage());
    assertEquals("felix.log.flush-interval must be a positive duration, got PT0S",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.flush-interval = 0ms"))).getMessage());
    String notADuration = assertThrows(IllegalArgumentException.class,
        () -> LogSettings.fromConfig(withOverride("felix.log.flush-interval = soon"))).getMessage();
    assertEquals(true, notADuration.startsWith("felix.log.flush-interval is not valid: "), notADuration);
    assertEquals("felix.log.flush-threads must be between 1 and 64, got 0",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.flush-threads = 0"))).getMessage());
    assertEquals("felix.log.verify-on-open must be all or unflushed, got 'never'",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.verify-on-open = never"))).getMessage());
    assertEquals("felix.log.reopen-interval must be a positive duration, got PT0S",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.reopen-interval = 0s"))).getMessage());
    assertEquals("felix.log.idle-file-close must be a duration >= 0 (0 = never), got PT-1S",
        assertThrows(IllegalArgumentException.class,
            () -> LogSettings.fromConfig(withOverride("felix.log.idle-file-close = -1s"))).getMessage());
    assertEquals("felix.log.index-interval-bytes is missing", assertThrows(IllegalArgumentException.class,
        () -> LogSettings.fromConfig(ConfigFactory.parseString("segment-bytes = 1 MiB, flush = always, "
            + "flush-interval = 1s, flush-threads = 1, verify-on-open = all"))).getMessage());
  }

  @Test
  void segmentNamesParseAndFormat() {
    assertEquals("00000000000000000042.log", new SegmentName(42).logFileName());
    assertEquals(new SegmentName(42), SegmentName.parse("00000000000000000042.log").orElseThrow());
    assertEquals(true, SegmentName.parse("42.log").isEmpty());
    assertEquals(true, SegmentName.parse("00000000000000000042.log.tmp").isEmpty());
    assertEquals(true, SegmentName.parse("99999999999999999999.log").isEmpty());
  }
}
