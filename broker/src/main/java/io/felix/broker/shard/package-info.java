/**
 * Shard replicas: one {@link io.felix.broker.shard.ShardReplica} actor per replica on this broker, started,
 * re-roled and retired by the broker's {@link io.felix.broker.shard.ReplicaDirectory} from the assignment tables
 * the control plane pushes. A table is applied only if its version is newer than the one held: each replica it
 * lists for this broker is started or re-assigned, and each replica it no longer lists is retired.
 *
 * <h2>Message flow of one produce (quorum acks, cluster mode)</h2>
 * <ol>
 *   <li>Client listener: frame, parse, check the RecordList ({@link io.felix.broker.shard.RecordListSummary}),
 *       find the local leader replica in the {@link io.felix.broker.shard.ReplicaRegistry}, tell it
 *       {@code ClientProduce} (plain mode: if another broker leads, forward over the replication connection).
 *   <li>{@link io.felix.broker.shard.ShardLeader}: append with its epoch (the log assigns the offsets), park the
 *       producer in {@link io.felix.broker.shard.PendingProduces}, ask the log to report the batch stored (fsync),
 *       answer the followers' held fetches with the new batches.
 *   <li>{@link io.felix.broker.shard.ShardFollower} (on each follower broker, via the replication connection):
 *       append the leader's batches as they are, fetch again at once, and when the fsync completes send an
 *       ack-only fetch with its stored offset.
 *   <li>Leader: each fetch updates that follower's stored offset; the commit offset becomes the highest offset
 *       stored on a majority (of this epoch, see ShardLeader); producers whose batch lies below it are answered,
 *       parked consumer fetches ({@link io.felix.broker.shard.ConsumerReads}) are served.
 * </ol>
 * Artery carries only the control messages ({@link io.felix.broker.wire.ControlMessage}, protobuf).
 */
package io.felix.broker.shard;
