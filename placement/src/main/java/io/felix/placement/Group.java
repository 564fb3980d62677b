package io.felix.placement;

/** A stream or cache: {@code shards} shards numbered from 0, each with {@code replicationFactor} replicas. */
public record Group(String name, GroupKind kind, int shards, int replicationFactor) {

  public Group {
    if (name == null || name.isEmpty()) {
      throw new InvalidLayoutException("group name must not be empty");
    }
    if (kind == null) {
      throw new InvalidLayoutException("group " + name + ": kind is required");
    }
    if (shards < 0) {
      throw new InvalidLayoutException("group " + name + ": shard count must be >= 0, got " + shards);
    }
    if (replicationFactor < 1) {
      throw new InvalidLayoutException(
          "group " + name + ": replication factor must be >= 1, got " + replicationFactor);
    }
  }

  public static Group stream(String name, int shards, int replicationFactor) {
    return new Group(name, GroupKind.STREAM, shards, replicationFactor);
  }

  public static Group cache(String name, int shards, int replicationFactor) {
    return new Group(name, GroupKind.CACHE, shards, replicationFactor);
  }
}
