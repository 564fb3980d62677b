package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.ShardLog;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * What a replica actor is built from besides its log: kept by {@link FailedReplica} while the log is failed, so that
 * a reopened log gets a {@link ReplicaContext} wired exactly as the first one was.
 */
record ReplicaWiring(ShardId id, int brokerId, LogOpener opener, ReplicationTransport transport,
    ReplicationSettings settings, ReplicaRegistry registry, ActorContext<ShardReplica.Command> actor,
    ReplicaClock clock) {

  ReplicaContext contextFor(ShardLog log) {
    return new ReplicaContext(this, log);
  }
}
