package io.felix.broker.assignment;

/**
 * What makes a group of shards a cache rather than a stream: its entries are keyed and read by key (the latest
 * committed entry per key). Persisted with the cache's creation as part of its {@link StreamConfig}.
 *
 * @param defaultTtlMs how long an entry written without its own TTL stays readable, counted from its timestamp;
 *     0: for ever
 */
public record CacheConfig(long defaultTtlMs) {
  public CacheConfig {
    if (defaultTtlMs < 0) {
      throw new IllegalArgumentException("default_ttl_ms must be 0 (no expiry) or more, got " + defaultTtlMs);
    }
  }
}
