package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.transport.ReplicationSettings;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.LongSupplier;

/**
 * What a leader knows of its followers and learners in one epoch: where each one's log ends and what it has stored
 * (its entries in a fetch session), what was shipped to it since, and whether it is in sync. From this come the
 * commit point (see {@link #commitPoint}), the {@code all} acks condition, the replicas in contact and whom to ship
 * what. Owned by the leader actor; every time is the leader clock's monotonic nanoseconds.
 *
 * <p>Shipping: a follower registers a position (a session and a fetch id) with an entry; the leader then pushes
 * the records after {@link #shippedTo} into that session, one answer at a time: the next once the follower's log end
 * (its fetch offset) has reached what was shipped ({@link #ready}). An idle follower that holds the whole log is
 * parked: the leader's next append ships to it at once, with no message in between.
 *
 * <p>In sync (Kafka's rule): a follower stays in the in-sync set while it caught up with the leader's log end within
 * isr-max-lag-time ({@link #caughtUpAt}) and was at most isr-max-lag-records behind at its last entry; it (re)joins once it holds
 * everything committed and is caught up by that rule. A parked follower is caught up for as long as its session
 * lives (its broker asks at least once per fetch-max-wait), so an idle shard needs no message to stay in sync.
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
    /** Its log end as its last entry said, -1 before any. */
    long fetchOffset = -1;
    long storedOffset;
    boolean inSync;
    /** The last time it was known to hold the leader's whole log (Long.MIN_VALUE: never). */
    long caughtUpNanos = Long.MIN_VALUE;
    /** The leader's log end at its previous entry, and when that was (Kafka's lastCaughtUpTime rule). */
    long logEndAtLastEntry = -1;
    long lastEntryNanos = Long.MIN_VALUE;
    /** Its registered position: null before its first accepted entry and after its session ended. */
    SessionLink session;
    long sessionId;
    long fetchId;
    /** Where the next shipment to it starts: its fetch offset plus what is on the way. */
    long shippedTo;
    /** The highest commit offset it was sent, -1 before any answer of this position. */
    long commitSent = -1;

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
  private final Map<Integer, Replica> replicas = new java.util.TreeMap<>();
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

  /** The brokers tracked (followers and learners). */
  Iterable<Integer> brokers() {
    return replicas.keySet();
  }

  /** The replicas in the in-sync set, the leader included, in ascending broker id order (never a learner). */
  List<Integer> inSyncReplicas(long now) {
    refresh(now);
    List<Integer> inSync = new ArrayList<>(List.of(leaderId));
    replicas.forEach((broker, p) -> {
      if (p.inSync && !p.learner) {
        inSync.add(broker);
      }
    });
    Collections.sort(inSync);
    return inSync;
  }

  /** Whether {@code broker} is a follower or learner of this leader (anyone else's entry is refused). */
  boolean tracks(int broker) {
    return replicas.containsKey(broker);
  }

  /**
   * Whether an entry of {@code broker} in session {@code sessionId} with {@code fetchId} starts a position anew (the
   * leader has not registered it): then shipping restarts at its fetch offset.
   */
  boolean startsPosition(int broker, long sessionId, long fetchId) {
    Replica p = replicas.get(broker);
    return p.session == null || p.sessionId != sessionId || p.fetchId != fetchId;
  }

  /**
   * Records an entry of a tracked follower whose log agrees with the leader's up to {@code fetchOffset}: that is its
   * position, and it has stored everything below {@code min(storedOffset, fetchOffset)}. An entry that starts a
   * position (see {@link #startsPosition}) registers it: shipping restarts at {@code fetchOffset}. Re-evaluates its
   * place in the in-sync set.
   */
  void onEntry(int broker, SessionLink session, long sessionId, long fetchId, long fetchOffset, long storedOffset,
      long now) {
    Replica p = replicas.get(broker);
    long end = logEnd.getAsLong();
    if (startsPosition(broker, sessionId, fetchId) || fetchOffset > p.shippedTo) {
      p.session = session;
      p.sessionId = sessionId;
      p.fetchId = fetchId;
      p.shippedTo = fetchOffset;
      p.commitSent = -1; // its first answer goes at once: it carries the commit offset (a new replica vouches then)
    }
    p.fetchOffset = fetchOffset;
    // Monotonic: an ack overtaken by a later one (across a reconnect) must not lower what is known stored.
    p.storedOffset = Math.max(p.storedOffset, Math.min(storedOffset, fetchOffset));
    if (fetchOffset >= end) {
      p.caughtUpNanos = now;
    } else if (p.logEndAtLastEntry >= 0 && fetchOffset >= p.logEndAtLastEntry) {
      p.caughtUpNanos = Math.max(p.caughtUpNanos, p.lastEntryNanos); // it holds what the log held back then
    }
    p.logEndAtLastEntry = end;
    p.lastEntryNanos = now;
    updateInSync(broker, p, now);
  }

  /**
   * The leader is about to append at {@code now}: whoever holds the whole log up to here was caught up until now
   * (after the append it is behind until it has fetched the new records).
   */
  void beforeAppend(long now) {
    long end = logEnd.getAsLong();
    replicas.forEach((broker, p) -> {
      if (p.fetchOffset >= end) {
        p.caughtUpNanos = caughtUpAt(p);
      }
    });
  }

  /** The session of {@code broker} ended (its broker stopped asking): nothing more is shipped to that position. */
  void sessionEnded(int broker, long sessionId, long now) {
    Replica p = replicas.get(broker);
    if (p != null && p.session != null && p.sessionId == sessionId) {
      p.caughtUpNanos = caughtUpAt(p); // what its session proved, before it is forgotten
      p.session = null;
      updateInSync(broker, p, now);
    }
  }

  /**
   * Whether {@code broker} has a registered position and has appended everything shipped to it: the next answer
   * may go.
   */
  boolean ready(int broker) {
    Replica p = replicas.get(broker);
    return p.session != null && p.fetchOffset == p.shippedTo;
  }

  /** Where the next shipment to {@code broker} starts. */
  long shippedTo(int broker) {
    return replicas.get(broker).shippedTo;
  }

  /** The highest commit offset {@code broker} was sent in its current position (-1: none yet). */
  long commitSent(int broker) {
    return replicas.get(broker).commitSent;
  }

  SessionLink session(int broker) {
    return replicas.get(broker).session;
  }

  long sessionId(int broker) {
    return replicas.get(broker).sessionId;
  }

  long fetchId(int broker) {
    return replicas.get(broker).fetchId;
  }

  /** An answer to {@code broker} left: records up to {@code nextOffset} (exclusive) and {@code commit}. */
  void shipped(int broker, long nextOffset, long commit) {
    Replica p = replicas.get(broker);
    p.shippedTo = Math.max(p.shippedTo, nextOffset);
    p.commitSent = Math.max(p.commitSent, commit);
  }

  /** Drops {@code broker}'s registered position (it was refused): its next entry registers anew. */
  void forgetPosition(int broker) {
    replicas.get(broker).session = null;
  }

  /** Re-evaluates every follower's place in the in-sync set (time passes without entries). */
  void refresh(long now) {
    replicas.forEach((broker, p) -> updateInSync(broker, p, now));
  }

  /**
   * Whether a member of the in-sync set has not caught up: it leaves the set once isr-max-lag-time passes so, which
   * someone must look at (the leader keeps its work tick while this holds).
   */
  boolean inSyncBehind() {
    long end = logEnd.getAsLong();
    for (Replica p : replicas.values()) {
      if (p.inSync && p.fetchOffset < end) {
        return true;
      }
    }
    return false;
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
  boolean inSyncStored(long end, long now) {
    for (int r : assignment.replicas()) {
      Replica p = replicas.get(r);
      if (p != null) {
        updateInSync(r, p, now);
        if (p.inSync && p.storedOffset < end) {
          return false;
        }
      }
    }
    return true;
  }

  /** Members of the replica set, leader included, whose broker's session asked within the in-sync time bound. */
  int inContact(long now) {
    int count = 1;
    for (int r : assignment.replicas()) {
      Replica p = replicas.get(r);
      if (p != null && inContact(p, now)) {
        count++;
      }
    }
    return count;
  }

  private boolean inContact(Replica p, long now) {
    if (p.session == null) {
      return false;
    }
    long asked = p.session.lastRequestNanos(p.sessionId);
    return asked != Long.MIN_VALUE && now - asked <= settings.isrMaxLagTime().toNanos();
  }

  /**
   * When {@code p} was last known caught up: while it holds the whole log and its session lives, as of its broker's
   * last request (a parked follower would have been shipped anything new); otherwise as last seen.
   */
  private long caughtUpAt(Replica p) {
    if (p.session != null && p.fetchOffset >= logEnd.getAsLong()) {
      return Math.max(p.caughtUpNanos, p.session.lastRequestNanos(p.sessionId));
    }
    return p.caughtUpNanos;
  }

  private void updateInSync(int broker, Replica p, long now) {
    long caughtUp = caughtUpAt(p);
    boolean recent = caughtUp != Long.MIN_VALUE && now - caughtUp <= settings.isrMaxLagTime().toNanos();
    // The record bound as of its last entry (how far behind it said it was), as when each fetch was checked.
    boolean withinRecords = p.fetchOffset >= 0 && p.logEndAtLastEntry - p.fetchOffset <= settings.isrMaxLagRecords();
    boolean inSync = p.inSync
        ? recent && withinRecords
        : recent && withinRecords && p.fetchOffset >= commitOffset.getAsLong();
    if (inSync != p.inSync) {
      p.inSync = inSync;
      onInSyncChange.changed(broker, p.learner, inSync, p.fetchOffset);
    }
  }

  private static Replica keep(Replica old, boolean learner) {
    Replica p = new Replica(learner);
    if (old != null) {
      p.fetchOffset = old.fetchOffset;
      p.storedOffset = old.storedOffset;
      p.inSync = old.inSync;
      p.caughtUpNanos = old.caughtUpNanos;
      p.logEndAtLastEntry = old.logEndAtLastEntry;
      p.lastEntryNanos = old.lastEntryNanos;
      p.session = old.session;
      p.sessionId = old.sessionId;
      p.fetchId = old.fetchId;
      p.shippedTo = old.shippedTo;
      p.commitSent = old.commitSent;
    }
    return p;
  }
}
