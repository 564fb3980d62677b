package io.felix.placement;

import java.util.Arrays;

/**
 * What a pass remembers about groups between decisions, so it does not re-scan them: each group's leader spread
 * over live brokers (recomputed only after the group changed), and whether the group was found with no allowed
 * stream move. Such a group stays stuck until its own layout changes (a step or a finished move of one of its
 * shards) or a capped broker's replica count changes, since only those can make a move allowed.
 */
final class GroupWatch {

  private final int[] most;
  private final int[] fewest;
  private final boolean[] stale;
  private final int[] version;
  private final long[] stuckAt;
  private int capVersion;

  GroupWatch(int groupCount) {
    most = new int[groupCount];
    fewest = new int[groupCount];
    stale = new boolean[groupCount];
    Arrays.fill(stale, true);
    version = new int[groupCount];
    stuckAt = new long[groupCount];
    Arrays.fill(stuckAt, -1);
  }

  void changed(int g) {
    stale[g] = true;
    version[g]++;
  }

  void capChanged() {
    capVersion++;
  }

  /** Most minus fewest of {@code counts[row + b]} over the live brokers {@code b}. */
  int spread(int g, int[] counts, int row, int[] live) {
    if (stale[g]) {
      int high = 0;
      int low = 0;
      for (int i = 0; i < live.length; i++) {
        int count = counts[row + live[i]];
        high = i == 0 ? count : Math.max(high, count);
        low = i == 0 ? count : Math.min(low, count);
      }
      most[g] = high;
      fewest[g] = low;
      stale[g] = false;
    }
    return most[g] - fewest[g];
  }

  boolean knownStuck(int g) {
    return stuckAt[g] == stamp(g);
  }

  void markStuck(int g) {
    stuckAt[g] = stamp(g);
  }

  private long stamp(int g) {
    return ((long) version[g] << 32) | (capVersion & 0xffffffffL);
  }
}
