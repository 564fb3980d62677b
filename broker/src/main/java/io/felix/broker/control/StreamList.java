package io.felix.broker.control;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.wire.ControlMessage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.TreeMap;

/**
 * Every stream the placement singleton has decided, without their shards: what the admin API's stream list reads
 * ({@link PlacementController.GetStreams}). A {@link ControlView} would carry every shard's assignment across Artery
 * to list a handful of streams.
 *
 * @param streams in name order
 */
public record StreamList(List<StreamRecord> streams) implements ControlMessage {

  public StreamList {
    streams = List.copyOf(streams);
  }

  /** The streams of the singleton's state, in name order. */
  static StreamList of(ControlState state) {
    return new StreamList(state.streams().values().stream().sorted(Comparator.comparing(StreamRecord::name)).toList());
  }

  /**
   * The streams an assignment table holds, as the singleton that published it lists them: every broker can answer a
   * list from its own table, without a question to the singleton (busy, or not yet started, while thousands of
   * shards are created or fail over).
   */
  public static StreamList of(AssignmentTable table) {
    List<StreamRecord> streams = new ArrayList<>();
    new TreeMap<>(table.streams()).forEach((name, shards) -> {
      ShardAssignment first = table.shards().get(new ShardId(name, 0));
      streams.add(new StreamRecord(name, shards, first == null ? 0 : first.replicas().size(),
          first == null ? null : first.incarnation(), table.streamConfigs().getOrDefault(name, StreamConfig.DEFAULTS)));
    });
    return new StreamList(streams);
  }
}
