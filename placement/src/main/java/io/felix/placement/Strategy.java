package io.felix.placement;

/**
 * How leaders are counted. {@link #STREAM_AWARE} (the default) balances every group first and the cluster totals
 * second. {@link #CLUSTER_SHARE} is the old rule, kept only so tests and benchmarks can show the per-stream skew it
 * leaves: it places by the cluster share alone and plans only cluster-level moves.
 */
public enum Strategy {
  STREAM_AWARE("stream-aware"),
  CLUSTER_SHARE("cluster-share");

  private final String wireName;

  Strategy(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }

  public static Strategy fromWireName(String name) {
    for (Strategy strategy : values()) {
      if (strategy.wireName.equals(name)) {
        return strategy;
      }
    }
    throw new InvalidLayoutException("unknown strategy '" + name + "' (expected stream-aware or cluster-share)");
  }
}
