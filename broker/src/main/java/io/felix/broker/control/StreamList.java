package io.felix.broker.control;

import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.wire.ControlMessage;
import java.util.List;

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
}
