package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientSettingsTest {
  private static String error(Runnable r) {
    return assertThrows(IllegalArgumentException.class, r::run).getMessage();
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    ClientSettings s = ClientSettings.builder("127.0.0.1:9092").build();
    assertEquals(Duration.ofMillis(5), s.linger());
    assertEquals(256 * 1024, s.batchSizeBytes());
    assertEquals(1, s.maxInFlightBatchesPerShard());
    assertEquals(false, s.retryAmbiguousErrors());
    assertEquals(Integer.MAX_VALUE, s.retries());
    assertEquals(Duration.ofSeconds(120), s.deliveryTimeout());
    assertEquals(List.of(new HostPort("127.0.0.1", 9092)), s.bootstrap());
    assertEquals(128, s.cacheGetBatchKeys());
    assertEquals(2, s.cacheGetsInFlightPerShard());
  }

  @Test
  void badValuesAreRefusedNamingTheSetting() {
    assertEquals("address must be host:port, got 'nohost'", error(() -> ClientSettings.builder("nohost")));
    assertEquals("batchSizeBytes must be positive, got 0",
        error(() -> ClientSettings.builder("h:1").batchSizeBytes(0).build()));
    assertEquals("ackTimeout (PT30S) must be below requestTimeout (PT30S) so the broker answers first",
        error(() -> ClientSettings.builder("h:1").ackTimeout(Duration.ofSeconds(30)).build()));
    assertEquals("linger must not be negative, got PT-1S",
        error(() -> ClientSettings.builder("h:1").linger(Duration.ofSeconds(-1)).build()));
    assertEquals("port must be in 1..65535, got 70000", error(() -> ClientSettings.builder("h:70000")));
    assertEquals("batchSizeBytes (8388608) must leave 4096 bytes of maxFrameBytes (8388608) for the rest of "
        + "the request", error(() -> ClientSettings.builder("h:1").batchSizeBytes(8 << 20).build()));
    assertEquals("cacheGetBatchKeys must be positive, got 0",
        error(() -> ClientSettings.builder("h:1").cacheGetBatchKeys(0).build()));
    assertEquals("cacheGetsInFlightPerShard must be positive, got -1",
        error(() -> ClientSettings.builder("h:1").cacheGetsInFlightPerShard(-1).build()));
  }

  @Test
  void backoffDoublesUpToTheCap() {
    ClientSettings s = ClientSettings.builder("h:1").retryBackoff(Duration.ofMillis(50))
        .retryBackoffMax(Duration.ofMillis(300)).build();
    assertEquals(List.of(50L, 100L, 200L, 300L, 300L),
        List.of(1, 2, 3, 4, 40).stream().map(a -> s.backoffNanos(a) / 1_000_000).toList());
  }
}
