package io.felix.placement;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Decides where shards and their leaders go. Records in, a {@link Plan} out: no I/O, no clock, no randomness, no
 * state between calls. The control plane calls it from its cluster singleton and proposes the steps; the
 * {@code simulate} tool and {@link Simulator} call it pass after pass.
 *
 * <h2>Goals, in order</h2>
 * <ol>
 *   <li>Every shard has a leader: a shard whose leader is down is promoted, a new shard is placed.
 *   <li>Nothing stays on a {@code draining} broker.
 *   <li>Every group (stream or cache) is level: no live broker leads two or more shards of the group than another.
 *       A group's write capacity is the capacity of the brokers leading its shards, so one stream led 1/1/10 has
 *       one broker's worth even when the cluster totals read 21/21/19.
 *   <li>The cluster totals are level, within one, without making any group less level.
 * </ol>
 *
 * <h2>Constraints</h2>
 * <ul>
 *   <li>A promotion only picks a live broker holding an in-sync replica.
 *   <li>A rebalance move (stream or cluster) never lowers the number of distinct zones in the shard's replica set,
 *       and never fills a broker past {@code max_shards}. (Placement and drains prefer the same but may, as a last
 *       resort, go to the least loaded broker: a shard without a home is worse.)
 *   <li>At most {@code max_concurrent_moves} moves in flight cluster-wide (default 1: a staged copy is a full copy
 *       of the shard's log) and {@code max_moves_per_broker} into or out of one broker. Moves in flight count.
 *   <li>{@code paused} plans no moves; promotions and placements still happen.
 * </ul>
 *
 * <h2>Tallies</h2>
 * Per live broker: leaders in total and per group, replicas hosted in total and per group; moves in flight count
 * as finished. With {@code nodes} live brokers, a group of {@code shards} shards has a floor
 * {@code shards / nodes} and a ceiling {@code ceil(shards / nodes)}; the cluster share is
 * {@code ceil(all shards / nodes)}.
 *
 * <h2>Algorithm: one pass</h2>
 * Shards are walked in (group name, shard) order and brokers compared by id, so the plan depends only on the
 * snapshot's content: two planners given the same snapshot, in any list order, return the identical plan. Every
 * step updates the tallies at once, so the next decision of the same pass sees it.
 * <ol>
 *   <li><b>Promote</b> each shard whose leader is down or missing to the best live in-sync replica.
 *   <li><b>Place</b> each new shard. The leader is the highest-scoring live broker of the first non-empty tier:
 *       under the group floor and the cluster share; under the floor; under the ceiling and the share; under the
 *       ceiling; under the share; any broker with room; else the least loaded. The score is rendezvous hashing of
 *       (group, shard) with the broker id, ties to the lower id. The followers go to distinct live brokers, a
 *       broker with room before one at its cap, then a new zone while one remains, then the fewest replicas of the
 *       group, then the fewest replicas overall, then the higher score.
 *   <li><b>Drain</b> (skipped when paused, like every move): each shard led or hosted by a draining broker moves to
 *       a live broker. A draining leader goes preferably as a staged copy to a broker with room that keeps the zone
 *       count (one move empties the draining broker of that shard), else as a transfer to a follower, ranked by the
 *       leader tiers above; a draining follower goes by the follower order above, keeping the zone count first.
 *       While drain moves are planned or wait for a limit, no stream or cluster move is planned: leveling a layout
 *       that is still being emptied would only move shards twice.
 *   <li><b>Stream moves</b>, group by group: while the broker leading the most of the group leads at least two more
 *       than the broker leading the fewest, the most hands one shard to the fewest. Between brokers equally good
 *       for the group the cluster totals decide (the giver leads more overall, the receiver fewer), then the id.
 *       The shard is the first, in shard order, whose replica set already holds the receiver (a leadership
 *       transfer, no copy), else the first the zone and cap constraints allow (the receiver gets a staged copy and
 *       the giver leaves the replica set). If no shard of the best pair is allowed, the next pair is tried (givers
 *       by most, receivers by fewest, gap at least two); if the best allowed pair is held back by a move limit,
 *       the group waits for the next pass instead of taking a worse pair.
 *   <li><b>Cluster moves</b>, only if no group planned or waited for a stream move in this pass: while the broker
 *       leading the most overall leads at least two more than the one leading the fewest, it hands over one shard
 *       of a group that the receiver leads strictly fewer of (transfers first, then shard order, same
 *       constraints and pair order).
 * </ol>
 * Strategy {@code cluster-share} is the old rule, kept for comparison: it places by the share tiers only (under
 * the share, any with room, least loaded) and plans only cluster moves, without the per-group condition.
 *
 * <h2>Guarantees</h2>
 * <ul>
 *   <li>Determinism as above.
 *   <li>No thrash: a stream move goes from a broker with at least two more of the group to one with fewer, so it
 *       strictly lowers that group's sum of squared leader counts; a cluster move leaves every group's sum the same
 *       or lower and strictly lowers the cluster's. The pair (per-group spread, cluster spread) falls with every
 *       rebalance move, so a simulation converges and placement's own moves never undo each other.
 *   <li>Without zones, caps or draining brokers, a converged layout has every group within its floor and ceiling
 *       and the totals within one. Zones and caps can leave a group two apart when no allowed move exists.
 *   <li>A new group on brokers that all have room is placed within one of level and needs no moves after.
 * </ul>
 *
 * <h2>Worked example</h2>
 * Three live brokers 0, 1, 2, replication factor 3 (every broker holds every shard), stream {@code perf-quorum} of
 * 12 shards led 1/1/10 and cluster totals 21/21/19 (other groups make up the rest). Floor and ceiling are both 4.
 * When the stream's turn comes (groups go in name order, one move per pass by default): broker 2 leads the most of
 * the stream (10), brokers 0 and 1 the fewest (1 each); the tie between 0 and 1 goes to the one leading fewer
 * overall, then the lower id, so with equal totals broker 0 receives. Broker 0
 * already holds a replica of every shard, so the first shard led by 2 becomes a leadership transfer 2 -> 0. The
 * counts are now 2/1/9 and the next pass (or the same pass, with a larger move limit) moves 2 -> 1, and so on
 * until 4/4/4 after six moves, the lower bound (10 - 4 leaders above the ceiling). Only then, if the totals differ
 * by two or more, does a cluster move happen, and only of a group the receiver leads fewer of. This layout, with
 * its other groups, is the second worked example of docs/placement.md, which gives the rules in full.
 */
public final class Planner {

  private Planner() {}

  /** One pass over the snapshot: promotions, placements, then (unless paused) drain, stream and cluster moves. */
  public static Plan plan(ClusterSnapshot snapshot) {
    return new Pass(Layout.of(snapshot)).run();
  }

  /**
   * Chooses the new leader of one shard whose leader failed, among {@code inSync} (broker ids holding an in-sync
   * replica; the failed leader and brokers that are not live are ignored), by the same tiers as placement. The
   * snapshot's own leader of the shard is not counted. Empty when no candidate is left: the shard stays down.
   *
   * @throws InvalidLayoutException if the shard has no assignment or a candidate is not one of its replicas
   */
  public static Optional<Step> promote(ClusterSnapshot snapshot, String group, int shard, Set<Integer> inSync) {
    return new Pass(Layout.of(snapshot)).promoteOne(group, shard, inSync);
  }

  /** One shard to promote: its group, its number, and the brokers holding an in-sync replica of it. */
  public record Promotion(String group, int shard, Set<Integer> inSync) {
    public Promotion {
      inSync = Set.copyOf(inSync);
    }
  }

  /**
   * {@link #promote} for many shards in one pass over one layout (a failover round of a lost broker's shards): each
   * promotion counts toward its broker before the next is chosen, exactly as if they were promoted one after the
   * other, so a lost broker's leaders spread over the others by the same tiers; the cost is one layout, not one per
   * shard. Answers in the order asked, empty where no candidate is left.
   *
   * @throws InvalidLayoutException as {@link #promote} does, for the first bad request
   */
  public static List<Optional<Step>> promoteAll(ClusterSnapshot snapshot, List<Promotion> promotions) {
    Pass pass = new Pass(Layout.of(snapshot));
    List<Optional<Step>> steps = new ArrayList<>(promotions.size());
    for (Promotion p : promotions) {
      steps.add(pass.promoteOne(p.group(), p.shard(), p.inSync()));
    }
    return steps;
  }
}
