package io.felix.placement;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The move limits of a pass: moves in flight cluster-wide ({@code max_concurrent_moves}) and into or out of each
 * broker ({@code max_moves_per_broker}), counting the snapshot's moves in flight and the moves planned so far.
 */
final class MoveBudget {

  /** Which limit, if any, holds a move back. */
  enum Limit {
    NONE,
    CLUSTER,
    BROKER
  }

  private final PlacementSettings settings;
  private final int[] perBroker;
  private final List<Integer> moving = new ArrayList<>();

  MoveBudget(PlacementSettings settings, int brokerCount) {
    this.settings = settings;
    this.perBroker = new int[brokerCount];
  }

  void count(int shard, int from, int to) {
    moving.add(shard);
    perBroker[from]++;
    perBroker[to]++;
  }

  Limit limitFor(int from, int to) {
    if (clusterLimitReached()) {
      return Limit.CLUSTER;
    }
    Integer limit = settings.maxMovesPerBroker();
    if (limit != null && (perBroker[from] >= limit || perBroker[to] >= limit)) {
      return Limit.BROKER;
    }
    return Limit.NONE;
  }

  boolean clusterLimitReached() {
    return moving.size() >= settings.maxConcurrentMoves();
  }

  /** Ends every move in flight and returns the shards that were moving. */
  List<Integer> finishAll() {
    List<Integer> done = new ArrayList<>(moving);
    moving.clear();
    Arrays.fill(perBroker, 0);
    return done;
  }
}
