package io.felix.placement;

/**
 * The knobs of placement.
 *
 * @param maxConcurrentMoves moves in flight cluster-wide, planned ones included (a staged copy is a full copy of the
 *     shard's log, so the default is one)
 * @param maxMovesPerBroker moves into or out of any one broker, or {@code null} for no per-broker limit
 * @param paused plans no moves; new shards and promotions still happen, since a shard without a leader is down
 */
public record PlacementSettings(
    Strategy strategy, int maxConcurrentMoves, Integer maxMovesPerBroker, boolean paused) {

  public static final PlacementSettings DEFAULT = new PlacementSettings(Strategy.STREAM_AWARE, 1, null, false);

  public PlacementSettings {
    if (strategy == null) {
      throw new InvalidLayoutException("settings: strategy is required");
    }
    if (maxConcurrentMoves < 1) {
      throw new InvalidLayoutException("settings: max_concurrent_moves must be >= 1, got " + maxConcurrentMoves);
    }
    if (maxMovesPerBroker != null && maxMovesPerBroker < 1) {
      throw new InvalidLayoutException("settings: max_moves_per_broker must be >= 1, got " + maxMovesPerBroker);
    }
  }

  public PlacementSettings withStrategy(Strategy newStrategy) {
    return new PlacementSettings(newStrategy, maxConcurrentMoves, maxMovesPerBroker, paused);
  }

  public PlacementSettings withMaxConcurrentMoves(int moves) {
    return new PlacementSettings(strategy, moves, maxMovesPerBroker, paused);
  }

  public PlacementSettings withMaxMovesPerBroker(Integer moves) {
    return new PlacementSettings(strategy, maxConcurrentMoves, moves, paused);
  }

  public PlacementSettings withPaused(boolean isPaused) {
    return new PlacementSettings(strategy, maxConcurrentMoves, maxMovesPerBroker, isPaused);
  }
}
