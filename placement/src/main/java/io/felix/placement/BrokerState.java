package io.felix.placement;

import java.util.Locale;

/**
 * What placement may do with a broker. {@code live} brokers take leaders and replicas; a {@code draining} broker
 * takes nothing new and has every shard it leads or hosts moved off; a {@code down} broker is ignored, and the
 * shards it led are promoted elsewhere.
 */
public enum BrokerState {
  LIVE,
  DRAINING,
  DOWN;

  /** The name used in JSON and in the admin API: {@code live}, {@code draining}, {@code down}. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static BrokerState fromWireName(String name) {
    for (BrokerState state : values()) {
      if (state.wireName().equals(name)) {
        return state;
      }
    }
    throw new InvalidLayoutException("unknown broker state '" + name + "' (expected live, draining or down)");
  }
}
