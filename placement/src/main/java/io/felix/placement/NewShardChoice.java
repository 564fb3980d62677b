package io.felix.placement;

import java.util.Arrays;

/**
 * Chooses the replica set of a new shard: the leader by {@link LeaderTiers} (first non-empty tier, then the higher
 * rendezvous score, then the lower id) and the followers in the order {@link FollowerChoice} describes (with room
 * before without, a zone the set lacks before one it has, the fewest replicas of the group, the fewest replicas
 * overall, the higher score, the lower id). The decisions are exactly those orders; this class only makes them
 * cheap, because a pass that places every shard of a cluster looks at every live broker for every shard (100,000
 * shards on 500 brokers: 50 million looks):
 *
 * <ul>
 *   <li>The shard's scores on every live broker are computed once into an array, by a branch-free loop the JIT
 *       vectorises, and serve the leader and the followers alike.
 *   <li>Each live broker's leader tier and follower key for the group being placed are kept in arrays: rebuilt when
 *       the group changes, and afterwards recomputed only for the brokers a step touched ({@link #changed}), since
 *       a step changes the tallies of its own brokers only. A count per tier gives the lowest non-empty tier
 *       without a scan.
 *   <li>The leader is one scan of the lowest tier's scores; the followers come from a second scan that keeps, per
 *       zone, the best {@code rf - 1} brokers other than the leader by the follower order: the zone a follower is
 *       in decides whether it adds a zone to the set, and whatever the set is, the best broker of a zone not yet in
 *       it is among that zone's first {@code rf - 1}, since at most {@code rf - 2} followers precede it. The
 *       followers are then picked from these few.
 * </ul>
 *
 * <p>Brokers are held at positions sorted by zone, then broker index (ascending id), so each zone's brokers are
 * one contiguous run of the arrays; where the orders above end in "the lower id", positions of different zones
 * are compared by broker index. Belongs to one pass, which must report every tally change it makes while placing
 * ({@link #changed}).
 */
final class NewShardChoice {

  /** Follower key bits, as in {@link FollowerChoice}: without room sorts last, then a zone the set already has. */
  private static final long FULL = 2L << 56;
  private static final long OLD_ZONE = 1L << 56;

  private final Layout layout;
  private final LeaderTiers tiers;
  /** The live broker at each position, and each broker's position (NONE if not live). */
  private final int[] brokerAt;
  private final int[] position;
  private final long[] brokerTerm;
  /** Buckets: 0 for brokers without a zone, z + 1 for zone z; bucket k holds positions [start[k], start[k + 1]). */
  private final int buckets;
  private final int[] start;

  private final long[] score;
  /** Per position, its leader tier for the group. */
  private final int[] tier;
  private final int[] tierCount = new int[LeaderTiers.LAST + 1];
  private final long[] followKey;
  private final LowestKeyRuns runs;
  private int group = Layout.NONE;

  /** Per bucket, the best {@code top} (rf - 1) positions but the leader's by the follower order, best first. */
  private int top;
  private int[] best;
  private final int[] bestCount;

  NewShardChoice(Layout layout, LeaderTiers tiers) {
    this.layout = layout;
    this.tiers = tiers;
    int n = layout.live.length;
    buckets = layout.zoneCount + 1;
    start = new int[buckets + 1];
    for (int b : layout.live) {
      start[bucketOf(b) + 1]++;
    }
    for (int k = 0; k < buckets; k++) {
      start[k + 1] += start[k];
    }
    int[] next = Arrays.copyOf(start, buckets);
    brokerAt = new int[n];
    position = new int[layout.brokerCount];
    Arrays.fill(position, Layout.NONE);
    brokerTerm = new long[n];
    for (int b : layout.live) {
      int p = next[bucketOf(b)]++;
      brokerAt[p] = b;
      position[b] = p;
      brokerTerm[p] = RendezvousScore.brokerTerm(layout.brokerId[b]);
    }
    score = new long[n];
    tier = new int[n];
    followKey = new long[n];
    bestCount = new int[buckets];
    runs = new LowestKeyRuns(followKey, start);
  }

  private int bucketOf(int b) {
    return layout.zone[b] == Layout.NONE ? 0 : layout.zone[b] + 1;
  }

  /**
   * The replica set of new shard {@code s} (broker indexes), its leader first. {@link SnapshotRules} guarantees
   * enough live brokers for a group with new shards.
   */
  int[] choose(int s) {
    int g = layout.shardGroup[s];
    int rf = layout.group[g].replicationFactor();
    if (g != group) {
      startGroup(g, rf);
    }
    long seed = layout.seed(s);
    long[] terms = brokerTerm;
    long[] scores = score;
    for (int p = 0; p < terms.length; p++) {
      scores[p] = RendezvousScore.score(seed, terms[p]);
    }
    int lead = leader();
    if (lead == Layout.NONE) {
      throw new IllegalStateException("no live broker to place shard " + layout.shardNumber(s) + " of group "
          + layout.group[g].name());
    }
    if (rf > 1) {
      keepBestFollowers(lead);
    }
    int[] set = new int[rf];
    set[0] = lead;
    for (int i = 1; i < rf; i++) {
      set[i] = follower(set, i);
    }
    for (int i = 0; i < rf; i++) {
      set[i] = brokerAt[set[i]];
    }
    return set;
  }

  /** The highest score of the lowest tier, ties to the lower id. */
  private int leader() {
    int lowest = 0;
    while (lowest < LeaderTiers.LAST && tierCount[lowest] == 0) {
      lowest++;
    }
    if (lowest == LeaderTiers.LAST) {
      return leastLoaded();
    }
    int[] tiersAt = tier;
    long[] scores = score;
    int lead = Layout.NONE;
    long leadScore = Long.MIN_VALUE;
    for (int p = 0; p < tiersAt.length; p++) {
      long sc = scores[p];
      // One branch, almost never taken: which brokers are in the tier is as unpredictable as their scores.
      if ((tiersAt[p] == lowest) & (sc >= leadScore)) {
        if (lead == Layout.NONE || sc > leadScore || brokerAt[p] < brokerAt[lead]) {
          lead = p;
          leadScore = sc;
        }
      }
    }
    return lead;
  }

  /**
   * Every live broker is full (the last tier): the fewest leaders wins outright, then the score, exactly as the
   * scan in broker order that {@link LeaderTiers#beats} describes.
   */
  private int leastLoaded() {
    int lead = Layout.NONE;
    long leadScore = 0;
    for (int b : layout.live) {
      int p = position[b];
      if (lead != Layout.NONE && layout.leadersTotal[b] != layout.leadersTotal[brokerAt[lead]]) {
        if (layout.leadersTotal[b] > layout.leadersTotal[brokerAt[lead]]) {
          continue;
        }
        leadScore = Long.MIN_VALUE;
      }
      if (lead == Layout.NONE || score[p] > leadScore) {
        lead = p;
        leadScore = score[p];
      }
    }
    return lead;
  }

  /**
   * Fills each bucket's best list from the bucket's run of lowest keys when it has enough brokers besides the
   * leader (they then precede every other broker of the bucket), else from the whole bucket.
   */
  private void keepBestFollowers(int lead) {
    for (int k = 0; k < buckets; k++) {
      int n = runs.size(k);
      boolean leadInRun = lead >= start[k] && lead < start[k + 1] && runs.contains(lead);
      if (n - (leadInRun ? 1 : 0) >= top) {
        keepFromRun(k, lead, n);
      } else {
        keepFromBucket(k, lead);
      }
    }
  }

  /**
   * The run's keys are all equal, so the order is the score, then the position (the run is unordered). The test
   * against the list's worst, kept in registers, is all most brokers cost; an insertion happens a few times a shard.
   */
  private void keepFromRun(int k, int lead, int n) {
    long[] scores = score;
    int[] list = best;
    int[] run = runs.members();
    int from = k * top;
    int count = 0;
    long worstScore = Long.MIN_VALUE;
    int worst = Integer.MAX_VALUE;
    for (int i = runs.from(k), end = runs.from(k) + n; i < end; i++) {
      int p = run[i];
      long sc = scores[p];
      if (((sc > worstScore) | ((sc == worstScore) & (p < worst))) & (p != lead)) {
        count = insert(list, from, count, p);
        if (count == top) {
          worst = list[from + top - 1];
          worstScore = scores[worst];
        }
      }
    }
    bestCount[k] = count;
  }

  /** As {@link #keepFromRun}, over the whole bucket in position order, with the key first. */
  private void keepFromBucket(int k, int lead) {
    long[] keys = followKey;
    long[] scores = score;
    int[] list = best;
    int from = k * top;
    int count = 0;
    long worstKey = Long.MAX_VALUE;
    long worstScore = 0;
    for (int p = start[k]; p < start[k + 1]; p++) {
      long key = keys[p];
      if (((key < worstKey) | ((key == worstKey) & (scores[p] > worstScore))) & (p != lead)) {
        count = insert(list, from, count, p);
        if (count == top) {
          worstKey = keys[list[from + top - 1]];
          worstScore = scores[list[from + top - 1]];
        }
      }
    }
    bestCount[k] = count;
  }

  /** Inserts {@code p} into the list at {@code from} holding {@code count}, dropping the worst of a full list. */
  private int insert(int[] list, int from, int count, int p) {
    int at = from + Math.min(count, top - 1);
    while (at > from && precedes(p, list[at - 1])) {
      list[at] = list[at - 1];
      at--;
    }
    list[at] = p;
    return Math.min(count + 1, top);
  }

  /** Broker {@code b}'s tallies changed (it was given a shard or a leadership, or lost one): re-rank it. */
  void changed(int b) {
    if (b != Layout.NONE && group != Layout.NONE && position[b] != Layout.NONE) {
      rank(position[b]);
    }
  }

  private void startGroup(int g, int rf) {
    group = g;
    top = rf - 1;
    best = new int[buckets * top];
    Arrays.fill(tierCount, 0);
    runs.invalidateAll();
    for (int p = 0; p < brokerAt.length; p++) {
      tier[p] = LeaderTiers.LAST;
      tierCount[LeaderTiers.LAST]++;
      rank(p);
    }
  }

  private void rank(int p) {
    int b = brokerAt[p];
    tierCount[tier[p]]--;
    tier[p] = tiers.tier(group, b, true);
    tierCount[tier[p]]++;
    long full = layout.hasRoom(b) ? 0 : FULL;
    long oldKey = followKey[p];
    followKey[p] = full | ((long) layout.groupReplicas(group, b) << 28) | layout.hostedTotal[b];
    runs.keyChanged(p, oldKey);
  }

  /** Whether {@code p} precedes {@code q} of the same bucket in the follower order (zone aside). */
  private boolean precedes(int p, int q) {
    if (followKey[p] != followKey[q]) {
      return followKey[p] < followKey[q];
    }
    return score[p] > score[q] || (score[p] == score[q] && p < q);
  }

  /** The best position not among the first {@code used} of {@code set}: each bucket's best candidate, compared. */
  private int follower(int[] set, int used) {
    boolean zoned = layout.zoneCount > 0;
    int choice = Layout.NONE;
    long choiceKey = 0;
    for (int k = 0; k < buckets; k++) {
      int candidate = Layout.NONE;
      for (int j = 0; j < bestCount[k] && candidate == Layout.NONE; j++) {
        int p = best[k * top + j];
        if (!contains(set, used, p)) {
          candidate = p;
        }
      }
      if (candidate == Layout.NONE) {
        continue;
      }
      long key = followKey[candidate] | (!zoned || k == 0 || zoneIn(set, used, k - 1) ? OLD_ZONE : 0);
      if (choice == Layout.NONE || key < choiceKey
          || (key == choiceKey && (score[candidate] > score[choice]
              || (score[candidate] == score[choice] && brokerAt[candidate] < brokerAt[choice])))) {
        choice = candidate;
        choiceKey = key;
      }
    }
    return choice;
  }

  private boolean zoneIn(int[] set, int used, int zone) {
    for (int i = 0; i < used; i++) {
      if (layout.zone[brokerAt[set[i]]] == zone) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(int[] set, int used, int p) {
    for (int i = 0; i < used; i++) {
      if (set[i] == p) {
        return true;
      }
    }
    return false;
  }
}
