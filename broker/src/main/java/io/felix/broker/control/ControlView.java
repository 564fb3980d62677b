package io.felix.broker.control;

import io.felix.broker.wire.ControlMessage;
import java.util.List;

/**
 * What the admin API reads from the singleton: the decided state plus what only the running singleton knows
 * (which brokers are reachable, the last placement pass).
 *
 * @param available brokers that are cluster members, up and reachable
 */
public record ControlView(
    ControlState state, List<Integer> available, LastPass lastPass, String strategy, int maxConcurrentMoves,
    int maxMovesPerBroker, long placementIntervalMillis) implements ControlMessage {

  public ControlView {
    available = List.copyOf(available);
  }

  /** The last placement pass: when, why, what it planned (the library's steps, as text) and leaderless shards. */
  public record LastPass(long atMillis, String trigger, List<String> planned, List<String> leaderless) {
    public static final LastPass NONE = new LastPass(0, "none yet", List.of(), List.of());
  }
}
