package io.felix.broker.assignment;

import java.util.Objects;

/** A shard of a stream: the unit that has a replica set and a leader. Ordered by stream name, then shard number. */
public record ShardId(String stream, int shard) implements Comparable<ShardId> {

  public ShardId {
    Objects.requireNonNull(stream, "stream");
    if (stream.isEmpty()) {
      throw new IllegalArgumentException("stream name must not be empty");
    }
    if (shard < 0) {
      throw new IllegalArgumentException("shard must be >= 0, got " + shard + " for stream " + stream);
    }
  }

  @Override
  public int compareTo(ShardId other) {
    int byStream = stream.compareTo(other.stream);
    return byStream != 0 ? byStream : Integer.compare(shard, other.shard);
  }

  @Override
  public String toString() {
    return stream + "/" + shard;
  }
}
