package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.RetentionSettings;
import io.felix.broker.log.ShardLog;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.ReplicationFrame;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * What every behaviour of one replica actor shares: identity, the log it owns, the transport, the settings and the
 * state that outlives a change of role (the fence and the highest commit offset known). Used only from the replica
 * actor's thread.
 */
final class ReplicaContext {
  /** What this context was built from: a replica whose log fails builds the next context from it. */
  final ReplicaWiring wiring;
  final ShardId id;
  final int brokerId;
  final ShardLog log;
  final ReplicationTransport transport;
  final ReplicationSettings settings;
  final ReplicaRegistry registry;
  final ActorContext<ShardReplica.Command> actor;
  final ConsumerReads reads;
  final BrokerMetrics metrics;
  final ReplicaClock clock;
  private final ReplicaMetadata metadata;
  /** What {@code replica.state} holds: changed only by writing it first. */
  private ReplicaState state;
  /** The epoch promised when the actor opened the log: it leads only at epochs granted after (see LeadRule). */
  final long promisedAtOpen;
  /** Why this replica, when assigned to lead, does not (set by {@link ShardReplica#roleFor} when it refuses). */
  NotServingReason refusal = NotServingReason.FENCED_ABOVE_EPOCH;
  /** The highest commit offset (high watermark) this replica knows; only grows. */
  long commitOffset;
  /** When retention last looked at the log ({@link #enforceRetention}). */
  private long retentionCheckedAtNanos;
  private CacheReads cacheReads;

  ReplicaContext(ReplicaWiring wiring, ShardLog log, ReplicaMetadata metadata, ReplicaState state) {
    this.wiring = wiring;
    this.id = wiring.id();
    this.brokerId = wiring.brokerId();
    this.log = log;
    this.transport = wiring.transport();
    this.settings = wiring.settings();
    this.registry = wiring.registry();
    this.actor = wiring.actor();
    this.clock = wiring.clock();
    this.reads = new ConsumerReads(id, log, clock);
    this.metrics = BrokerMetrics.of(actor.getSystem());
    this.metadata = metadata;
    this.state = state;
    this.promisedAtOpen = state.promisedEpoch();
    this.retentionCheckedAtNanos = clock.nanoTime();
    metrics.logStartOffset(id, log.logStartOffset());
  }

  /**
   * No leader below this epoch may append here or replicate to here: the highest epoch this replica was fenced
   * at, followed a leader at, or led.
   */
  long promisedEpoch() {
    return state.promisedEpoch();
  }

  boolean recovering() {
    return state.recovering();
  }

  ReplicaState state() {
    return state;
  }

  /**
   * Raises the promise to {@code epoch}, durably, before the caller acts on it (answers the fence, fetches from
   * the leader, leads). A promise that cannot be stored must not be acted on: the actor fails (and is started
   * again by its directory).
   */
  void promise(long epoch) {
    store(state.promise(epoch));
  }

  /** The recovering replica has copied the leader's log up to the commit offset it learned. */
  void recovered() {
    if (state.recovering()) {
      store(state.recovered());
      actor.getLog().info("replica {} on broker {} recovered: it holds the leader's log up to the commit offset {}",
          id, brokerId, commitOffset);
    }
  }

  private void store(ReplicaState next) {
    if (next.equals(state)) {
      return;
    }
    try {
      metadata.write(next);
    } catch (IOException e) {
      throw new UncheckedIOException("replica " + id + " cannot store its state in " + metadata.path(), e);
    }
    state = next;
  }

  /**
   * This cache shard's index and reads, built on first use from the index checkpoint plus the log (null for a
   * stream's shard). Kept across changes of role: a follower keeps its index current (it compacts and may serve
   * follower reads), so a promoted follower serves reads without rebuilding it.
   */
  CacheReads cacheReads() {
    if (cacheReads == null) {
      cacheReads = CacheReads.open(this);
    }
    return cacheReads;
  }

  /** The log was truncated or started again elsewhere: the index may name offsets it no longer holds. */
  void forgetCacheIndex() {
    cacheReads = null;
  }

  /** The leader role's check: a promise above {@code epoch} ended that leadership. */
  boolean fencedAbove(long epoch) {
    return state.promisedEpoch() > epoch;
  }

  /** Raises the known commit offset (never past the local log end) and serves consumers waiting for it. */
  void commitTo(long offset) {
    long bounded = Math.min(offset, log.logEndOffset());
    if (bounded > commitOffset) {
      commitOffset = bounded;
      metrics.commitOffset(id, commitOffset);
      reads.onCommitAdvanced(commitOffset);
    }
  }

  /**
   * The cleaner, run on every replica (leader, follower or learner) from its tick: once per check interval it applies
   * the stream's segment size and deletes the whole sealed segments past the stream's retention, never one holding
   * offsets at or after the commit offset this replica knows. A deletion that fails fails the log.
   */
  void enforceRetention(long nowNanos) {
    RetentionSettings defaults = registry.retention();
    if (nowNanos - retentionCheckedAtNanos < defaults.checkInterval().toNanos() || log.failed()) {
      return;
    }
    retentionCheckedAtNanos = nowNanos;
    RetentionSettings.Retention limits =
        defaults.resolve(registry.table().streamConfig(id.stream()), log.settings().segmentBytes());
    long before = log.logStartOffset();
    try {
      log.rollAt(limits.segmentBytes());
      long start = log.deleteSegmentsPastRetention(limits.retentionMs(), limits.retentionBytes(),
          clock.currentTimeMillis(), commitOffset);
      if (start != before) {
        metrics.logStartOffset(id, start);
      }
    } catch (UncheckedIOException e) {
      ShardReplica.reportFailure(this, e);
    }
  }

  void send(int broker, ReplicationFrame frame) {
    transport.send(broker, frame);
  }

  ReplicaStatus status(ReplicaRole role, boolean failed) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, failed,
        state.recovering(), state.promisedEpoch(), List.of(), log.logStartOffset());
  }

  /** A leader's status, with its in-sync set. */
  ReplicaStatus leaderStatus(ReplicaRole role, List<Integer> inSync) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, false,
        state.recovering(), state.promisedEpoch(), inSync, log.logStartOffset());
  }
}
