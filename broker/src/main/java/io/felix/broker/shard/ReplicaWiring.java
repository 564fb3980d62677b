package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.ShardLog;
import io.felix.broker.transport.ReplicationSettings;
import java.io.IOException;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;

/**
 * What a replica actor is built from besides its log: kept by {@link FailedReplica} while the log is failed, so that
 * a reopened log gets a {@link ReplicaContext} wired exactly as the first one was. The stash is the actor's one
 * buffer for the messages that wait while a file operation runs off its thread ({@link OpeningReplica},
 * {@link StoringReplica}).
 */
record ReplicaWiring(ShardId id, int brokerId, LogOpener opener, ReplicationSettings settings,
    ReplicaRegistry registry, ActorContext<ShardReplica.Command> actor, ReplicaClock clock, ReplicaTimers timers,
    StashBuffer<ShardReplica.Command> stash) {

  /** A log and its {@code replica.state}, opened off the actor's thread (see {@link OpeningReplica}). */
  record OpenedLog(ShardLog log, ReplicaMetadata metadata, ReplicaState state) {}

  /**
   * Opens the log and its {@code replica.state}: when the replica starts, and again every reopen interval while the
   * log is failed. The log is closed again when its state cannot be had.
   *
   * @throws IOException when the log cannot be opened, or its state cannot be read or written or belongs to another
   *     incarnation of the stream
   */
  ReplicaContext open(ShardAssignment assignment) throws IOException {
    return contextFor(openLog(assignment));
  }

  /**
   * The file work of {@link #open}, which touches nothing of the actor: safe on any thread, so that thousands of
   * replicas starting at once open off the actor threads ({@link OpeningReplica}).
   */
  OpenedLog openLog(ShardAssignment assignment) throws IOException {
    ShardLog log = opener.open();
    ReplicaMetadata metadata = new ReplicaMetadata(opener.dir());
    try {
      return new OpenedLog(log, metadata, openState(metadata, log, assignment));
    } catch (IOException | RuntimeException e) {
      try {
        log.close();
      } catch (IOException ignored) {
        // the replica fails either way; the reason reported is the state's
      }
      throw e;
    }
  }

  /** The replica's context over a log opened by {@link #openLog}; on the actor's thread. */
  ReplicaContext contextFor(OpenedLog opened) {
    return new ReplicaContext(this, opened.log(), opened.metadata(), opened.state());
  }

  /** A context over an already open log with a given state (tests). */
  ReplicaContext contextFor(ShardLog log, ReplicaState state) {
    return new ReplicaContext(this, log, new ReplicaMetadata(log.directory()), state);
  }

  /**
   * The replica's state as it opens. Without a {@code replica.state}: a log written before the file existed
   * promises its last epoch (what it may have led or followed at); an empty one is new or lost its directory
   * (wiped), which nothing here can tell apart, so it is recovering: it vouches for nothing until it has caught up
   * with a leader (a new shard's followers do so at once, the commit offset being 0), and leads only provisionally
   * (see {@link LeadRule}).
   */
  private static ReplicaState openState(ReplicaMetadata metadata, ShardLog log, ShardAssignment a)
      throws IOException {
    var stored = metadata.read();
    if (stored.isPresent()) {
      if (!stored.get().incarnation().equals(a.incarnation())) {
        throw new IOException("its directory " + log.directory() + " holds incarnation "
            + stored.get().incarnation() + " of the stream, the table's is " + a.incarnation());
      }
      return stored.get();
    }
    ReplicaState state = new ReplicaState(a.incarnation(), log.lastEpoch(), log.logEndOffset() == 0);
    if (log.logEndOffset() > 0) {
      metadata.write(state);
    }
    // An empty log's state is not written yet: lost in a crash, it is derived again exactly so, and every change
    // to it (a promise, the end of recovery) is written and fsynced before it is acted on. A new replica saves the
    // two fsyncs of writing it (a temporary file and its directory).
    return state;
  }
}
