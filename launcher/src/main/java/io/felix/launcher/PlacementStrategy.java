package io.felix.launcher;

import java.util.Arrays;
import java.util.Locale;

/** The placement singleton's strategies ({@code felix.control.strategy}) a local cluster can run with. */
public enum PlacementStrategy {
  /** Every stream's leaders spread evenly over the brokers, not just the cluster total. */
  STREAM_AWARE,
  /** Only the cluster's total of leaders per broker is balanced. */
  CLUSTER_SHARE;

  /** The word in broker.conf and on the command line: stream-aware, cluster-share. */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static PlacementStrategy fromWireName(String word) {
    return Arrays.stream(values()).filter(s -> s.wireName().equals(word)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("expected stream-aware or cluster-share, got '" + word + "'"));
  }
}
