package io.felix.broker.metrics;

/**
 * What the metrics read of a consumer group's position on one shard. The metrics package sits below the group
 * package (groups, like replicas and the client listener, report into the metrics), so the group package implements
 * this interface ({@code io.felix.broker.group.GroupLag}) rather than the metrics importing the group's types.
 */
public interface ConsumerGroupLag {

  String group();

  String stream();

  int shard();

  /** The group's committed offset on the shard, -1 for none. */
  long committed();

  /** The records between the group's committed offset and the shard's commit offset. */
  long lag();
}
