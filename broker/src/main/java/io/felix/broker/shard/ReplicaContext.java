package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.ShardLog;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.ReplicationFrame;
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
  /** No leader below this epoch may append here or replicate to here (FenceShard). */
  long fenceEpoch = -1;
  /**
   * Why this replica, when assigned to lead, does not: fenced above the epoch, unless {@link ShardReplica#roleFor}
   * found its log holding the epoch at a restart (which is also what raised the fence).
   */
  NotServingReason refusal = NotServingReason.FENCED_ABOVE_EPOCH;
  /** The highest commit offset (high watermark) this replica knows; only grows. */
  long commitOffset;

  ReplicaContext(ReplicaWiring wiring, ShardLog log) {
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

  void send(int broker, ReplicationFrame frame) {
    transport.send(broker, frame);
  }

  ReplicaStatus status(ReplicaRole role, boolean failed) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, failed);
  }

  /** A leader's status, with its in-sync set. */
  ReplicaStatus leaderStatus(ReplicaRole role, List<Integer> inSync) {
    return new ReplicaStatus(id, brokerId, true, role, log.lastEpoch(), log.logEndOffset(), commitOffset, false,
        inSync);
  }
}
