package io.felix.broker.control;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;

/**
 * Cluster-wide limits on streams, checked when a stream is created (see {@code felix.control} in reference.conf):
 * shards per stream, shards in the whole cluster, and the length of a stream name.
 */
public record StreamLimits(int maxShardsPerStream, int maxShards, int maxStreamNameLength) {

  public StreamLimits {
    if (maxShardsPerStream < 1) {
      throw new ConfigException.BadValue("felix.control.max-shards-per-stream", "must be >= 1, got "
          + maxShardsPerStream);
    }
    if (maxShards < maxShardsPerStream) {
      throw new ConfigException.BadValue("felix.control.max-shards",
          "must be >= max-shards-per-stream (" + maxShardsPerStream + "), got " + maxShards);
    }
    if (maxStreamNameLength < 1 || maxStreamNameLength > 255) {
      throw new ConfigException.BadValue("felix.control.max-stream-name-length",
          "must be 1..255 (a replica's directory name holds it), got " + maxStreamNameLength);
    }
  }

  static StreamLimits from(Config control) {
    return new StreamLimits(control.getInt("max-shards-per-stream"), control.getInt("max-shards"),
        control.getInt("max-stream-name-length"));
  }
}
