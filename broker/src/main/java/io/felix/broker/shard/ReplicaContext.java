package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.cache.CacheSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.RetentionSettings;
import io.felix.broker.log.ShardLog;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.protocol.replication.ReplicaFetch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * What every behaviour of one replica actor shares: identity, the log it owns, its timers, the settings and the
 * state that outlives a change of role (the fence and the highest commit offset known). Used only from the replica
 * actor's thread.
 */
final class ReplicaContext {
  /** What this context was built from: a replica whose log fails builds the next context from it. */
  final ReplicaWiring wiring;
  final ShardId id;
  final int brokerId;
  final ShardLog log;
  final ReplicationSettings settings;
  final ReplicaRegistry registry;
  final ActorContext<ShardReplica.Command> actor;
  final ConsumerReads reads;
  final BrokerMetrics metrics;
  final ReplicaClock clock;
  final ReplicaTimers timers;
  private final ReplicaMetadata metadata;
  /** What {@code replica.state} holds: changed only once the change is stored (see {@link StoringReplica}). */
  private ReplicaState state;
  /** The epoch promised when the actor opened the log: it leads only at epochs granted after (see LeadRule). */
  final long promisedAtOpen;
  /** Why this replica, when assigned to lead, does not (set by {@link ShardReplica#roleFor} when it refuses). */
  NotServingReason refusal = NotServingReason.FENCED_ABOVE_EPOCH;
  /** The highest commit offset (high watermark) this replica knows; only grows. */
  long commitOffset;
  /** The log end when housekeeping last ran: a log that grew since has something for retention to look at. */
  private long housekeptAtLogEnd = -1;
  /** The stream's settings when housekeeping last ran: changed ones (retention, segment size) are applied. */
  private StreamConfig housekeptConfig;
  /** The leader broker whose fetcher has this replica's position (see {@link #follow}), -1 for none. */
  private int fetchingFrom = -1;
  private CacheReads cacheReads;

  ReplicaContext(ReplicaWiring wiring, ShardLog log, ReplicaMetadata metadata, ReplicaState state) {
    this.wiring = wiring;
    this.id = wiring.id();
    this.brokerId = wiring.brokerId();
    this.log = log;
    this.settings = wiring.settings();
    this.registry = wiring.registry();
    this.actor = wiring.actor();
    this.clock = wiring.clock();
    this.timers = wiring.timers();
    this.reads = new ConsumerReads(id, log, clock);
    this.metrics = BrokerMetrics.of(actor.getSystem());
    this.metadata = metadata;
    this.state = state;
    this.promisedAtOpen = state.promisedEpoch();
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
   * Raises the promise to {@code epoch}, durably, then continues with {@code then}: nothing acts on it before it is
   * stored (answers the fence, fetches from the leader, leads). See {@link #store}.
   */
  Behavior<ShardReplica.Command> promise(long epoch, AbstractBehavior<ShardReplica.Command> role,
      Supplier<Behavior<ShardReplica.Command>> then) {
    return store(state.promise(epoch), role, then);
  }

  /**
   * The recovering replica has copied the leader's log up to the commit offset it learned: it says so durably, then
   * continues with {@code then} (which may vouch for the log). See {@link #store}.
   */
  Behavior<ShardReplica.Command> recovered(AbstractBehavior<ShardReplica.Command> role,
      Supplier<Behavior<ShardReplica.Command>> then) {
    if (!state.recovering()) {
      return then.get();
    }
    return store(state.recovered(), role, () -> {
      // A new shard's replicas recover at commit offset 0 (thousands at once for a large stream): only a replica that
      // copied committed records, after it lost its directory, is worth a line at INFO.
      String message = "replica {} on broker {} recovered: it holds the leader's log up to the commit offset {}";
      if (commitOffset > 0) {
        actor.getLog().info(message, id, brokerId, commitOffset);
      } else {
        actor.getLog().debug(message, id, brokerId, commitOffset);
      }
      return then.get();
    });
  }

  /**
   * Makes {@code next} this replica's state: written and fsynced off the actor's thread while messages wait
   * ({@link StoringReplica}), then {@code then} continues on it. An unchanged state continues at once.
   *
   * @param role the role this replica is in, null while it takes one (see {@link StoringReplica#store})
   */
  Behavior<ShardReplica.Command> store(ReplicaState next, AbstractBehavior<ShardReplica.Command> role,
      Supplier<Behavior<ShardReplica.Command>> then) {
    return store(next, role, then, StoringReplica.failTheActor(this));
  }

  /** As {@link #store}; a failed write continues with {@code onFailure} given its cause, instead of failing the actor. */
  Behavior<ShardReplica.Command> store(ReplicaState next, AbstractBehavior<ShardReplica.Command> role,
      Supplier<Behavior<ShardReplica.Command>> then, Function<String, Behavior<ShardReplica.Command>> onFailure) {
    return next.equals(state) ? then.get() : StoringReplica.store(this, next, role, then, onFailure);
  }

  /** Writes and fsyncs {@code next} to {@code replica.state}; safe on any thread (see {@link StoringReplica}). */
  void writeState(ReplicaState next) throws IOException {
    metadata.write(next);
  }

  /** {@code next} was stored by {@link #writeState}: it is the replica's state from now on. */
  void stateStored(ReplicaState next) {
    state = next;
  }

  Path statePath() {
    return metadata.path();
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
   * Schedules a housekeeping tick one retention-check-interval from now when it may have work: the log grew since the
   * last one, it holds sealed segments (which retention deletes, compaction rewrites), the stream's settings changed,
   * or it is a cache's (whose index is checkpointed). An idle stream replica with one segment has none.
   */
  void housekeepingIfDue() {
    if (log.failed()) {
      return;
    }
    if (log.logEndOffset() != housekeptAtLogEnd || log.segmentCount() > 1 || cacheReads != null
        || !registry.table().streamConfig(id.stream()).equals(housekeptConfig)) {
      timers.housekeepingIn(housekeepingInterval());
    }
  }

  /** Retention's check interval; a cache's compaction and checkpoint intervals when shorter. */
  private Duration housekeepingInterval() {
    Duration interval = registry.retention().checkInterval();
    if (cacheReads != null) {
      CacheSettings cache = registry.cache();
      for (Duration d : List.of(cache.compactionInterval(), cache.checkpointInterval())) {
        interval = d.compareTo(interval) < 0 ? d : interval;
      }
    }
    return interval;
  }

  /**
   * Housekeeping, on every replica (leader, follower or learner): the stream's segment size and retention (see
   * {@link #enforceRetention}) and the cache's index, compaction and checkpoint; then the next tick if still due.
   */
  void housekeep() {
    housekeptConfig = registry.table().streamConfig(id.stream());
    enforceRetention();
    CacheReads cache = cacheReads();
    if (cache != null && !log.failed()) {
      cache.onTick(commitOffset); // indexes what was committed, compacts and checkpoints
    }
    housekeptAtLogEnd = log.logEndOffset();
    if (log.segmentCount() > 1 || cache != null) {
      timers.housekeepingIn(housekeepingInterval());
    }
  }

  /**
   * The cleaner: applies the stream's segment size and deletes the whole sealed segments past the stream's
   * retention, never one holding offsets at or after the commit offset this replica knows. A deletion that fails
   * fails the log.
   */
  private void enforceRetention() {
    if (log.failed()) {
      return;
    }
    RetentionSettings defaults = registry.retention();
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

  /**
   * Gives this replica's position to the fetcher of {@code leaderBroker} (see {@link LeaderFetchers#follow}), leaving
   * the fetcher it fetched from before if that was another broker's.
   */
  void follow(int leaderBroker, ReplicaFetch position) {
    if (fetchingFrom >= 0 && fetchingFrom != leaderBroker) {
      unfollow();
    }
    fetchingFrom = leaderBroker;
    registry.fetchers().follow(leaderBroker, id, actor.getSelf(), position);
  }

  /** Stops fetching (a change of role, a failure, a stop). */
  void unfollow() {
    if (fetchingFrom >= 0) {
      registry.fetchers().unfollow(fetchingFrom, id, actor.getSelf());
      fetchingFrom = -1;
    }
  }

  ReplicaStatus status(ReplicaRole role, boolean failed) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, failed,
        state.recovering(), state.promisedEpoch(), List.of(), log.logStartOffset());
  }

  /** Publishes {@code status} for readers that need only roles ({@link ReplicaRegistry#published}). */
  void publish(ReplicaStatus status) {
    registry.publish(actor.getSelf(), status);
  }

  /** A leader's status, with its in-sync set. */
  ReplicaStatus leaderStatus(ReplicaRole role, List<Integer> inSync) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, false,
        state.recovering(), state.promisedEpoch(), inSync, log.logStartOffset());
  }
}
