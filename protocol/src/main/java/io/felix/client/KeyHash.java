package io.felix.client;

/**
 * Chooses a shard for a keyed record: {@code shardIds[(murmur2(key) & 0x7fffffff) % shardIds.length]} with the
 * 32-bit MurmurHash2 (seed 0x9747b28c) that Kafka's default partitioner uses, so the same key maps to the same
 * shard in every client, across restarts, for as long as the stream's shard count is unchanged.
 */
public final class KeyHash {
  private static final int SEED = 0x9747b28c;
  private static final int M = 0x5bd1e995;
  private static final int R = 24;

  private KeyHash() {}

  public static int shardFor(byte[] key, int[] shardIds) {
    if (shardIds.length == 0) {
      throw new IllegalArgumentException("stream has no shards");
    }
    return shardIds[shardIndex(key, shardIds.length)];
  }

  /** The position of the key's shard among {@code shardCount} shards (its id, when they are 0..count-1). */
  public static int shardIndex(byte[] key, int shardCount) {
    return (murmur2(key) & 0x7fffffff) % shardCount;
  }

  public static int murmur2(byte[] data) {
    int length = data.length;
    int h = SEED ^ length;
    int whole = length & ~3;
    for (int i = 0; i < whole; i += 4) {
      int k =
          (data[i] & 0xff)
              | ((data[i + 1] & 0xff) << 8)
              | ((data[i + 2] & 0xff) << 16)
              | ((data[i + 3] & 0xff) << 24);
      k *= M;
      k ^= k >>> R;
      k *= M;
      h *= M;
      h ^= k;
    }
    int tail = length & 3;
    if (tail == 3) {
      h ^= (data[whole + 2] & 0xff) << 16;
    }
    if (tail >= 2) {
      h ^= (data[whole + 1] & 0xff) << 8;
    }
    if (tail >= 1) {
      h ^= data[whole] & 0xff;
      h *= M;
    }
    h ^= h >>> 13;
    h *= M;
    h ^= h >>> 15;
    return h;
  }
}
