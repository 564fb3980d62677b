package io.felix.broker.cache;

import com.typesafe.config.Config;
import java.time.Duration;

/**
 * The broker's cache settings ({@code felix.cache} in reference.conf).
 *
 * @param maxKeyBytes a cache entry's key may not be longer (ENTRY_TOO_LARGE)
 * @param maxValueBytes a cache entry's value may not be longer (ENTRY_TOO_LARGE)
 * @param checkpointInterval how often a cache shard's replica writes its index checkpoint (when it changed)
 * @param compactionInterval how often a cache shard's replica cleans its sealed segments
 * @param tombstoneRetention how long compaction keeps a key's newest tombstone
 * @param followerReadMaxLag a follower answers follower reads only if its leader answered it this recently
 */
public record CacheSettings(int maxKeyBytes, int maxValueBytes, Duration checkpointInterval,
    Duration compactionInterval, Duration tombstoneRetention, Duration followerReadMaxLag) {
  public static final CacheSettings DEFAULTS = new CacheSettings(1024, 1024 * 1024, Duration.ofSeconds(30),
      Duration.ofMinutes(5), Duration.ofHours(24), Duration.ofSeconds(1));

  public CacheSettings {
    if (maxKeyBytes < 1 || maxValueBytes < 0 || checkpointInterval.isNegative() || checkpointInterval.isZero()
        || compactionInterval.isNegative() || compactionInterval.isZero() || tombstoneRetention.isNegative()
        || followerReadMaxLag.isNegative()) {
      throw new IllegalArgumentException("felix.cache: max-key-bytes must be at least 1, max-value-bytes at least 0,"
          + " checkpoint-interval and compaction-interval positive, tombstone-retention and follower-read-max-lag"
          + " at least 0");
    }
  }

  /** Reads {@code felix.cache} from the root config. */
  public static CacheSettings fromConfig(Config root) {
    Config c = root.getConfig("felix.cache");
    return new CacheSettings(c.getBytes("max-key-bytes").intValue(), c.getBytes("max-value-bytes").intValue(),
        c.getDuration("checkpoint-interval"), c.getDuration("compaction-interval"),
        c.getDuration("tombstone-retention"), c.getDuration("follower-read-max-lag"));
  }
}
