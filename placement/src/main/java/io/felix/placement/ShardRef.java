package io.felix.placement;

/** A shard of a group, ordered by group name then shard number (the order every pass walks). */
public record ShardRef(String group, int shard) implements Comparable<ShardRef> {

  @Override
  public int compareTo(ShardRef other) {
    int byGroup = group.compareTo(other.group);
    return byGroup != 0 ? byGroup : Integer.compare(shard, other.shard);
  }

  @Override
  public String toString() {
    return group + "/" + shard;
  }
}
