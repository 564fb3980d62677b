package io.felix.placement;

/**
 * A broker as placement sees it.
 *
 * @param zone the failure zone, or {@code null} when the cluster has no zones
 * @param maxShards the most shard replicas (leaders and followers) the broker may host, or {@code null} for no cap
 */
public record Broker(int id, String zone, Integer maxShards, BrokerState state) {

  public Broker {
    if (id < 0) {
      throw new InvalidLayoutException("broker id must be >= 0, got " + id);
    }
    if (zone != null && zone.isEmpty()) {
      throw new InvalidLayoutException("broker " + id + ": zone must not be empty (use null for no zone)");
    }
    if (maxShards != null && maxShards < 0) {
      throw new InvalidLayoutException("broker " + id + ": max_shards must be >= 0, got " + maxShards);
    }
    if (state == null) {
      throw new InvalidLayoutException("broker " + id + ": state is required");
    }
  }

  /** A live broker without zone or cap. */
  public static Broker live(int id) {
    return new Broker(id, null, null, BrokerState.LIVE);
  }

  public Broker withState(BrokerState newState) {
    return new Broker(id, zone, maxShards, newState);
  }
}
