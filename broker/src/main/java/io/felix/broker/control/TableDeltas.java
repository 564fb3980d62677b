package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Assignment tables sent as changes: between two tables most shards keep their assignment, so the singleton sends
 * the shards that changed (plus the small parts whole: brokers, streams, their settings) and each holder applies them
 * to the table it holds, if it holds exactly the base version. A holder that missed a change (Artery delivers at most
 * once) finds a gap and asks for the whole table. A change of more shards than fit one message is sent whole
 * ({@link TableChunks}), as before.
 */
final class TableDeltas {

  private TableDeltas() {}

  /** The change from {@code base} to {@code next}, or empty when it is too large for one message. */
  static Optional<AssignmentHolder.PublishDelta> between(AssignmentTable base, AssignmentTable next) {
    SortedMap<ShardId, ShardAssignment> changed = new TreeMap<>();
    for (ShardAssignment a : next.shards().values()) {
      ShardAssignment before = base.shards().get(a.id());
      if (before != a && !a.equals(before)) {
        changed.put(a.id(), a);
        if (changed.size() > TableChunks.ENTRIES_PER_CHUNK) {
          return Optional.empty();
        }
      }
    }
    List<ShardId> removed = new ArrayList<>();
    for (ShardId id : base.shards().keySet()) {
      if (!next.shards().containsKey(id)) {
        removed.add(id);
        if (removed.size() > TableChunks.ENTRIES_PER_CHUNK) {
          return Optional.empty();
        }
      }
    }
    if (next.streams().size() > TableChunks.ENTRIES_PER_CHUNK) {
      return Optional.empty();
    }
    return Optional.of(new AssignmentHolder.PublishDelta(base.version(), new AssignmentTable(next.version(),
        next.brokers(), next.streams(), changed, next.streamConfigs()), removed));
  }

  /** The table {@code delta} makes of {@code held}; empty when {@code held} is not the delta's base. */
  static Optional<AssignmentTable> apply(AssignmentTable held, AssignmentHolder.PublishDelta delta) {
    if (held.version() != delta.baseVersion()) {
      return Optional.empty();
    }
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>(held.shards());
    delta.removed().forEach(shards::remove);
    shards.putAll(delta.changes().shards());
    AssignmentTable c = delta.changes();
    return Optional.of(new AssignmentTable(c.version(), c.brokers(), c.streams(), shards, c.streamConfigs()));
  }
}
