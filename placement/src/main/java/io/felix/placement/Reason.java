package io.felix.placement;

import java.util.Locale;

/** Why a step was planned; the JSON names are {@code new-shard}, {@code failover}, {@code drain}, {@code stream}, {@code cluster}. */
public enum Reason {
  NEW_SHARD,
  FAILOVER,
  DRAIN,
  STREAM,
  CLUSTER;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
