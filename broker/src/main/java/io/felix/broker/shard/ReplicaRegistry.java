package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.RetentionSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * What the listeners (client and replication, running on stream threads) need to see of this broker's data
 * plane: the current assignment table and the local replica actors. Written only by {@link ReplicaDirectory};
 * read by anyone. Thread-safe.
 */
public final class ReplicaRegistry {
  private final int brokerId;
  private volatile AssignmentTable table = AssignmentTable.EMPTY;
  private final Map<ShardId, ActorRef<ShardReplica.Command>> replicas = new ConcurrentHashMap<>();
  private volatile NotServingSink notServing = NotServingSink.NONE;
  private volatile LeaderFetchers fetchers = LeaderFetchers.NONE;
  private volatile Duration notServingInterval = Duration.ofSeconds(1);
  private volatile RetentionSettings retention = RetentionSettings.defaults();
  private volatile io.felix.broker.cache.CacheSettings cache = io.felix.broker.cache.CacheSettings.DEFAULTS;

  public ReplicaRegistry(int brokerId) {
    this.brokerId = brokerId;
  }

  public int brokerId() {
    return brokerId;
  }

  public AssignmentTable table() {
    return table;
  }

  public Optional<ActorRef<ShardReplica.Command>> replica(ShardId id) {
    return Optional.ofNullable(replicas.get(id));
  }

  void table(AssignmentTable newer) {
    table = newer;
    fetchers.brokers(newer.brokers().keySet());
  }

  /** Where follower replicas give their positions: this broker's fetchers; set before replicas start. */
  public void fetchFrom(LeaderFetchers fetchers) {
    this.fetchers = fetchers;
  }

  LeaderFetchers fetchers() {
    return fetchers;
  }

  void put(ShardId id, ActorRef<ShardReplica.Command> replica) {
    replicas.put(id, replica);
  }

  void remove(ShardId id) {
    replicas.remove(id);
  }


  /**
   * Where replicas assigned to lead but not leading report it, and how often each repeats its report while that
   * lasts (the singleton may miss one: Artery delivers at most once). Set once the control plane is started.
   */
  public void reportNotServingTo(NotServingSink sink, Duration interval) {
    notServingInterval = interval;
    notServing = sink;
  }

  void reportNotServing(ShardId id, long epoch, NotServingReason reason) {
    notServing.report(id, brokerId, epoch, reason);
  }

  Duration notServingInterval() {
    return notServingInterval;
  }

  /** The broker's retention defaults and check interval (from {@code felix.log}); set before replicas start. */
  public void retention(RetentionSettings settings) {
    retention = settings;
  }

  public RetentionSettings retention() {
    return retention;
  }

  /** The broker's cache limits and checkpoint interval (from {@code felix.cache}); set before replicas start. */
  public void cache(io.felix.broker.cache.CacheSettings settings) {
    cache = settings;
  }

  public io.felix.broker.cache.CacheSettings cache() {
    return cache;
  }
}
