package io.felix.broker.control;

import io.felix.broker.assignment.ShardId;
import java.util.ArrayList;
import java.util.List;

/** Records what was asked of the replicas; the test feeds the answers back as the directories would. */
final class RecordingProbe implements ReplicaProbe {

  final List<String> asked = new ArrayList<>();
  /** When set, every directory counts as not known yet: the questions are recorded but said to be unsent. */
  boolean unknown;

  @Override
  public boolean fence(int brokerId, ShardId shard, long epoch) {
    asked.add("fence " + brokerId + " " + shard + " @" + epoch);
    return true;
  }

  @Override
  public boolean describe(int brokerId, ShardId shard) {
    asked.add("describe " + brokerId + " " + shard);
    return !unknown;
  }

  /** What was asked since the last call. */
  List<String> drain() {
    List<String> since = List.copyOf(asked);
    asked.clear();
    return since;
  }
}
