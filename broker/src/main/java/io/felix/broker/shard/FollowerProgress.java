package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.protocol.replication.ReplicaFetch;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a leader knows of its followers and learners in one epoch: how far each has fetched and stored, when it
 * last fetched, whether it is in sync, and the fetch it holds for it (long poll). From this come the commit
 * offset candidate (majority of stored offsets; learners never count) and the {@code all} acks condition.
 * Owned by the leader actor.
 */
final class FollowerProgress {

  /** One follower or learner. */
  static final class Replica {
    final boolean learner;
    long fetchOffset = -1;
    long storedOffset;
    long lastFetchNanos;
    boolean inSync;
    ReplicaFetch held;
    long heldSinceNanos;

    Replica(boolean learner) {
      this.learner = learner;
    }
  }

  private final ReplicaContext ctx;
  private final Map<Integer, Replica> replicas = new HashMap<>();
  private ShardAssignment assignment;

  FollowerProgress(ReplicaContext ctx, ShardAssignment assignment) {
    this.ctx = ctx;
    track(assignment);
  }

  /** Follows a new replica set or learner list of the same epoch, keeping what is known of those who stay. */
  void track(ShardAssignment next) {
    assignment = next;
    Map<Integer, Replica> before = new HashMap<>(replicas);
    replicas.clear();
    for (int r : next.replicas()) {
      if (r != ctx.brokerId) {
        replicas.put(r, keep(before.get(r), false));
      }
    }
    for (int r : next.learners()) {
      if (r != ctx.brokerId && !replicas.containsKey(r)) {
        replicas.put(r, keep(before.get(r), true));
      }
    }
  }

  Replica get(int broker) {
    return replicas.get(broker);
  }

  Map<Integer, Replica> all() {
    return replicas;
  }

  /** The highest offset stored on a majority of the replica set, the leader's {@code leaderStored} included. */
  long majorityStored(long leaderStored) {
    List<Long> stored = new ArrayList<>();
    stored.add(leaderStored);
    for (int r : assignment.replicas()) {
      Replica p = replicas.get(r);
      if (p != null) {
        stored.add(p.storedOffset);
      }
    }
    stored.sort((x, y) -> Long.compare(y, x));
    int quorum = assignment.quorumSize();
    return stored.size() >= quorum ? stored.get(quorum - 1) : 0;
  }

  /** Whether every in-sync member of the replica set (learners aside) has stored everything below {@code end}. */
  boolean inSyncStored(long end) {
    for (int r : assignment.replicas()) {
      Replica p = replicas.get(r);
      if (p != null && p.inSync && p.storedOffset < end) {
        return false;
      }
    }
    return true;
  }

  /** Members of the replica set, leader included, that fetched within the in-sync time bound. */
  int inContact(long now) {
    int count = 1;
    for (int r : assignment.replicas()) {
      Replica p = replicas.get(r);
      if (p != null && p.fetchOffset >= 0 && now - p.lastFetchNanos <= ctx.settings.isrMaxLagTime().toNanos()) {
        count++;
      }
    }
    return count;
  }

  /**
   * Re-evaluates one follower's place in the in-sync set: it stays within the lag bounds (records and time), and
   * (re)joins only once caught up with everything committed, so that one hovering at the bound does not flap.
   */
  void updateInSync(int broker, Replica p, long now, long epoch) {
    boolean recent = p.fetchOffset >= 0 && now - p.lastFetchNanos <= ctx.settings.isrMaxLagTime().toNanos();
    boolean inSync = p.inSync
        ? recent && ctx.log.logEndOffset() - p.fetchOffset <= ctx.settings.isrMaxLagRecords()
        : recent && p.fetchOffset >= ctx.commitOffset;
    if (inSync != p.inSync) {
      p.inSync = inSync;
      if (!p.learner) {
        ctx.actor.getLog().info("replica {}: broker {} {} the in-sync set at epoch {} (fetched up to {}, log end {})",
            ctx.id, broker, inSync ? "joined" : "left", epoch, p.fetchOffset, ctx.log.logEndOffset());
      }
    }
  }

  private static Replica keep(Replica old, boolean learner) {
    Replica p = new Replica(learner);
    if (old != null) {
      p.fetchOffset = old.fetchOffset;
      p.storedOffset = old.storedOffset;
      p.lastFetchNanos = old.lastFetchNanos;
      p.inSync = old.inSync;
      p.held = old.held;
      p.heldSinceNanos = old.heldSinceNanos;
    }
    return p;
  }
}
