package io.felix.placement;

import java.util.Arrays;

/**
 * For {@link NewShardChoice}: per zone bucket, the positions whose follower key is the bucket's lowest (its "run").
 * The best followers of a shard are always in the run when the run has enough members, so the follower scan can
 * read the run instead of the whole bucket: about a third of it on a cluster being filled.
 *
 * <p>While one group's shards are placed the keys only grow (a broker gains replicas, or fills up), so a run only
 * loses members, until it is empty and one scan of the bucket rebuilds it. A key that falls, or that comes to equal
 * the run's key from outside it, would break that; it is not expected, but it is cheap to catch: the run is marked
 * stale and rebuilt before its next use. Members are kept in no particular order (removal swaps in the last).
 */
final class LowestKeyRuns {

  private final long[] key;
  private final int[] start;
  private final int[] bucketAt;
  private final long[] runKey;
  private final int[] size;
  private final boolean[] stale;
  /** Bucket k's run is members[start[k] .. start[k] + size[k]). */
  private final int[] members;
  private final int[] indexOf;

  /**
   * @param key the follower key per position, owned and updated by the caller, who reports every change
   * @param start bucket k holds positions [start[k], start[k + 1])
   */
  LowestKeyRuns(long[] key, int[] start) {
    this.key = key;
    this.start = start;
    int buckets = start.length - 1;
    bucketAt = new int[key.length];
    for (int k = 0; k < buckets; k++) {
      Arrays.fill(bucketAt, start[k], start[k + 1], k);
    }
    runKey = new long[buckets];
    size = new int[buckets];
    stale = new boolean[buckets];
    members = new int[key.length];
    indexOf = new int[key.length];
    invalidateAll();
  }

  /** Every key changed (a new group): every run is rebuilt before its next use. */
  void invalidateAll() {
    Arrays.fill(stale, true);
    Arrays.fill(size, 0);
    Arrays.fill(indexOf, Layout.NONE);
  }

  /** Position {@code p}'s key changed from {@code oldKey} to {@code key[p]}. */
  void keyChanged(int p, long oldKey) {
    int k = bucketAt[p];
    if (stale[k] || key[p] == oldKey) {
      return;
    }
    if (indexOf[p] != Layout.NONE) {
      remove(k, p);
    }
    if (key[p] <= runKey[k]) {
      stale[k] = true;
    }
  }

  /** The run of bucket {@code k}, rebuilt first if stale or empty: its size; members from {@link #from}. */
  int size(int k) {
    if (stale[k] || size[k] == 0) {
      rebuild(k);
    }
    return size[k];
  }

  int from(int k) {
    return start[k];
  }

  int[] members() {
    return members;
  }

  boolean contains(int p) {
    return indexOf[p] != Layout.NONE;
  }

  private void rebuild(int k) {
    for (int i = start[k]; i < start[k] + size[k]; i++) {
      indexOf[members[i]] = Layout.NONE;
    }
    long lowest = Long.MAX_VALUE;
    for (int p = start[k]; p < start[k + 1]; p++) {
      lowest = Math.min(lowest, key[p]);
    }
    int n = 0;
    for (int p = start[k]; p < start[k + 1]; p++) {
      if (key[p] == lowest) {
        indexOf[p] = start[k] + n;
        members[start[k] + n++] = p;
      }
    }
    runKey[k] = lowest;
    size[k] = n;
    stale[k] = false;
  }

  private void remove(int k, int p) {
    int at = indexOf[p];
    int last = start[k] + size[k] - 1;
    members[at] = members[last];
    indexOf[members[at]] = at;
    indexOf[p] = Layout.NONE;
    size[k]--;
  }
}
