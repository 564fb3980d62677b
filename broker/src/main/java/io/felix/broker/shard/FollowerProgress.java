package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.protocol.replication.ReplicaFetch;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * What a leader knows of its followers and learners in one epoch: how far each has fetched and stored, when it
 * last fetched, whether it is in sync, and the fetch it holds for it (long poll). From this come the commit point
 * (see {@link #commitPoint}), the {@code all} acks condition and the replicas in contact. Owned by the leader
 * actor; every time is the leader clock's monotonic nanoseconds.
 */
final class FollowerProgress {

  /** Told when a follower or learner joins or leaves the in-sync set (the leader logs it). */
  @FunctionalInterface
  interface InSyncChange {
    void changed(int broker, boolean learner, boolean joined, long fetchOffset);
  }

  /** One follower or learner. */
  private static final class Replica {
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

  private final int leaderId;
  private final long epochStart;
  private final ReplicationSettings settings;
  private final LongSupplier logEnd;
  private final LongSupplier commitOffset;
  private final InSyncChange onInSyncChange;
  private final Map<Integer, Replica> replicas = new HashMap<>();
  private ShardAssignment assignment;

  /**
   * @param epochStart the first offset of the leader's epoch: nothing at or below it is committed by counting
   * @param logEnd the leader's log end offset (the in-sync bound in records)
   * @param commitOffset the commit offset known now (a follower rejoins the in-sync set only once past it)
   */
  FollowerProgress(int leaderId, ShardAssignment assignment, long epochStart, ReplicationSettings settings,
      LongSupplier logEnd, LongSupplier commitOffset, InSyncChange onInSyncChange) {
    this.leaderId = leaderId;
    this.epochStart = epochStart;
    this.settings = settings;
    this.logEnd = logEnd;
    this.commitOffset = commitOffset;
    this.onInSyncChange = onInSyncChange;
    track(assignment);
  }

  /** Follows a new replica set or learner list of the same epoch, keeping what is known of those who stay. */
  void track(ShardAssignment next) {
    assignment = next;
    Map<Integer, Replica> before = new HashMap<>(replicas);
    replicas.clear();
    for (int r : next.replicas()) {
      if (r != leaderId) {
        replicas.put(r, keep(before.get(r), false));
      }
    }
    for (int r : next.learners()) {
      if (r != leaderId && !replicas.containsKey(r)) {
        replicas.put(r, keep(before.get(r), true));
      }
    }
  }

  /** The replicas in the in-sync set, the leader included, in ascending broker id order (never a learner). */
  List<Integer> inSyncReplicas() {
    List<Integer> inSync = new ArrayList<>(List.of(leaderId));
    replicas.forEach((broker, p) -> {
      if (p.inSync && !p.learner) {
        inSync.add(broker);
      }
    });
    Collections.sort(inSync);
    return inSync;
  }

  /** Whether {@code broker} is a follower or learner of this leader (anyone else's fetch is refused). */
  boolean tracks(int broker) {
    return replicas.containsKey(broker);
  }

  /**
   * Records a fetch of a tracked follower whose log agrees with the leader's up to {@code fetchOffset}: that is its
   * position, and it has stored everything below {@code min(storedOffset, fetchOffset)}. Re-evaluates its place in
   * the in-sync set; a fetch held for it stays held (an ack-only fetch does not replace it).
   */
  void onFetch(int broker, long fetchOffset, long storedOffset, long now) {
    Replica p = replicas.get(broker);
    p.fetchOffset = fetchOffset;
    // Monotonic: an ack overtaken by a later one (across a reconnect) must not lower what is known stored.
    p.storedOffset = Math.max(p.storedOffset, Math.min(storedOffset, fetchOffset));
    p.lastFetchNanos = now;
    updateInSync(broker, p, now);
  }

  /** Holds a follower's fetch that found nothing new (long poll), replacing any held before. */
  void hold(int broker, ReplicaFetch fetch, long now) {
    Replica p = replicas.get(broker);
    p.held = fetch;
    p.heldSinceNanos = now;
  }

  /** Forgets the fetch held for {@code broker}: it is being answered. */
  void release(int broker) {
    replicas.get(broker).held = null;
  }

  /** Removes and returns every held fetch (new records arrived), by broker. */
  Map<Integer, ReplicaFetch> releaseAllHeld() {
    return releaseHeld(p -> true);
  }

  /** Removes and returns the held fetches that have waited {@code maxWaitNanos} or longer, by broker. */
  Map<Integer, ReplicaFetch> releaseHeldLongerThan(long maxWaitNanos, long now) {
    return releaseHeld(p -> now - p.heldSinceNanos >= maxWaitNanos);
  }

  /** Re-evaluates every follower's place in the in-sync set (time passes without fetches). */
  void onTick(long now) {
    replicas.forEach((broker, p) -> updateInSync(broker, p, now));
  }

  /**
   * The commit point: the highest offset stored on a majority of the replica set, counting the leader's
   * {@code leaderStored} and never a learner; empty until that offset is past the epoch start, i.e. until a majority
   * holds a record of this epoch. (Raft's rule: counting copies of an older epoch's records could commit records
   * that a later leader, elected from another majority, overwrites.)
   */
  OptionalLong commitPoint(long leaderStored) {
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
    long majority = stored.size() >= quorum ? stored.get(quorum - 1) : 0;
    return majority > epochStart ? OptionalLong.of(majority) : OptionalLong.empty();
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
      if (p != null && recent(p, now)) {
        count++;
      }
    }
    return count;
  }

  private boolean recent(Replica p, long now) {
    return p.fetchOffset >= 0 && now - p.lastFetchNanos <= settings.isrMaxLagTime().toNanos();
  }

  /**
   * A follower stays in the in-sync set while within the lag bounds (records and time), and (re)joins only once
   * caught up with everything committed, so that one hovering at the bound does not flap.
   */
  private void updateInSync(int broker, Replica p, long now) {
    boolean recent = recent(p, now);
    boolean inSync = p.inSync
        ? recent && logEnd.getAsLong() - p.fetchOffset <= settings.isrMaxLagRecords()
        : recent && p.fetchOffset >= commitOffset.getAsLong();
    if (inSync != p.inSync) {
      p.inSync = inSync;
      onInSyncChange.changed(broker, p.learner, inSync, p.fetchOffset);
    }
  }

  private Map<Integer, ReplicaFetch> releaseHeld(Predicate<Replica> due) {
    Map<Integer, ReplicaFetch> released = new LinkedHashMap<>();
    replicas.forEach((broker, p) -> {
      if (p.held != null && due.test(p)) {
        released.put(broker, p.held);
        p.held = null;
      }
    });
    return released;
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
