package io.felix.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;

/**
 * Kafka's range assignor for one stream: members in id order each take a contiguous range of shards, the first
 * {@code shards % members} one shard more. Deterministic: the same members and shard count always give the same
 * assignment, so every coordinator (and a test) computes the same one.
 */
final class RangeAssignor {
  private RangeAssignor() {}

  static Map<String, List<Integer>> assign(SortedSet<String> members, int shards) {
    Map<String, List<Integer>> assignment = new LinkedHashMap<>();
    if (members.isEmpty()) {
      return assignment;
    }
    int each = shards / members.size();
    int extra = shards % members.size();
    int next = 0;
    int index = 0;
    for (String member : members) {
      int count = each + (index < extra ? 1 : 0);
      List<Integer> owned = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        owned.add(next++);
      }
      assignment.put(member, List.copyOf(owned));
      index++;
    }
    return assignment;
  }
}
