package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyHashTest {
  @Test
  void murmur2MatchesKafkasDefaultPartitionerHash() {
    // Values published for Kafka's Utils.murmur2.
    assertEquals(-1993445489, KeyHash.murmur2(bytes("1")));
    assertEquals(126087238, KeyHash.murmur2(bytes("12")));
    assertEquals(-267702483, KeyHash.murmur2(bytes("123")));
    assertEquals(-1614185708, KeyHash.murmur2(bytes("1234")));
    assertEquals(-1188365604, KeyHash.murmur2(bytes("12345")));
  }

  @Test
  void shardIsTheHashModuloTheShardCountOverTheSortedIds() {
    // (-1993445489 & 0x7fffffff) = 154038159; % 3 = 0, % 4 = 3
    assertEquals(10, KeyHash.shardFor(bytes("1"), new int[] {10, 11, 12}));
    assertEquals(3, KeyHash.shardFor(bytes("1"), new int[] {0, 1, 2, 3}));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
