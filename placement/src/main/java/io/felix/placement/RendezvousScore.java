package io.felix.placement;

import java.nio.charset.StandardCharsets;

/**
 * Rendezvous (highest random weight) hashing of (group, shard) with a broker id: every broker gets a stable,
 * well-spread score per shard, so the choice among equally good brokers depends on nothing but the names and
 * numbers, never on input order or a hash map. Ties (vanishingly rare) go to the lower broker id.
 */
final class RendezvousScore {

  private RendezvousScore() {}

  /** FNV-1a over the UTF-8 bytes of the name: stable across JVMs and runs. */
  static long groupHash(String name) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return hash;
  }

  static long score(long groupHash, int shard, int brokerId) {
    return score(shardSeed(groupHash, shard), brokerId);
  }

  /** The half of the score that depends only on the shard, for loops that score one shard on every broker. */
  static long shardSeed(long groupHash, int shard) {
    return mix(groupHash + 0x9E3779B97F4A7C15L * (shard + 1L));
  }

  static long score(long shardSeed, int brokerId) {
    return score(shardSeed, brokerTerm(brokerId));
  }

  /** The half of the score that depends only on the broker, for loops that score many shards on one broker set. */
  static long brokerTerm(int brokerId) {
    return 0xC2B2AE3D27D4EB4FL * (brokerId + 1L);
  }

  /** The score from its two halves; branch-free, so a loop over an array of broker terms vectorises. */
  static long score(long shardSeed, long brokerTerm) {
    return mix(shardSeed ^ brokerTerm);
  }

  /** The SplitMix64 finalizer. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
