package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Cuts an assignment table into messages that each fit one Artery frame ({@code maximum-frame-size}, 2 MiB), and
 * puts the parts back together. A part holds every broker, at most {@link #ENTRIES_PER_CHUNK} streams, each with
 * its own settings (a stream's retention, a cache's kind: a broker must never run a stream on the defaults because
 * its table came in parts), and as many shards: with names at the 255-character ceiling a shard costs under 400
 * bytes on the wire and a stream entry with its settings under 600, so a part stays under 1.5 MiB. A table that fits
 * one part is sent whole, as before.
 */
public final class TableChunks {
  static final int ENTRIES_PER_CHUNK = 1_500;

  private TableChunks() {}

  /** The messages that publish {@code table}: one {@link AssignmentHolder.Publish}, or its parts in order. */
  public static List<AssignmentHolder.Command> publishing(AssignmentTable table) {
    if (fitsOneMessage(table)) {
      return List.of(new AssignmentHolder.Publish(table));
    }
    int count = (Math.max(table.shards().size(), table.streams().size()) + ENTRIES_PER_CHUNK - 1) / ENTRIES_PER_CHUNK;
    Iterator<Map.Entry<String, Integer>> streams = new TreeMap<>(table.streams()).entrySet().iterator();
    Iterator<ShardAssignment> shards = table.shards().values().iterator();
    List<AssignmentHolder.Command> parts = new ArrayList<>(count);
    for (int index = 0; index < count; index++) {
      Map<String, Integer> someStreams = new TreeMap<>();
      Map<String, StreamConfig> someConfigs = new TreeMap<>();
      TreeMap<ShardId, ShardAssignment> someShards = new TreeMap<>();
      for (int i = 0; i < ENTRIES_PER_CHUNK && streams.hasNext(); i++) {
        Map.Entry<String, Integer> e = streams.next();
        someStreams.put(e.getKey(), e.getValue());
        StreamConfig config = table.streamConfigs().get(e.getKey()); // travels with its stream
        if (config != null) {
          someConfigs.put(e.getKey(), config);
        }
      }
      for (int i = 0; i < ENTRIES_PER_CHUNK && shards.hasNext(); i++) {
        ShardAssignment a = shards.next();
        someShards.put(a.id(), a);
      }
      parts.add(new AssignmentHolder.PublishChunk(table.version(), index, count,
          new AssignmentTable(table.version(), table.brokers(), someStreams, someShards, someConfigs)));
    }
    return parts;
  }

  static boolean fitsOneMessage(AssignmentTable table) {
    return table.shards().size() <= ENTRIES_PER_CHUNK && table.streams().size() <= ENTRIES_PER_CHUNK;
  }

  /**
   * The parts of the newest version a holder has seen: parts of an older version are dropped, a newer version
   * starts over (its table replaces the one being assembled, whose missing parts may never come).
   */
  static final class Assembly {
    private long version = -1;
    private AssignmentTable[] parts = new AssignmentTable[0];
    private int received;

    /** Adds a part; returns the whole table once the last part of its version arrived. */
    Optional<AssignmentTable> add(AssignmentHolder.PublishChunk chunk) {
      if (chunk.version() < version || chunk.count() < 1 || chunk.index() < 0 || chunk.index() >= chunk.count()) {
        return Optional.empty();
      }
      if (chunk.version() > version || chunk.count() != parts.length) {
        version = chunk.version();
        parts = new AssignmentTable[chunk.count()];
        received = 0;
      }
      if (parts[chunk.index()] == null) {
        parts[chunk.index()] = chunk.part();
        received++;
      }
      if (received < parts.length) {
        return Optional.empty();
      }
      AssignmentTable whole = join(List.of(parts));
      parts = new AssignmentTable[0];
      received = 0;
      return Optional.of(whole);
    }
  }

  /** The table the parts (all of one version, one of each index) make up. */
  static AssignmentTable join(List<AssignmentTable> parts) {
    Map<String, Integer> streams = new TreeMap<>();
    Map<String, StreamConfig> configs = new TreeMap<>();
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    parts.forEach(p -> {
      streams.putAll(p.streams());
      configs.putAll(p.streamConfigs());
      shards.putAll(p.shards());
    });
    return new AssignmentTable(parts.get(0).version(), parts.get(0).brokers(), streams, shards, configs);
  }
}
