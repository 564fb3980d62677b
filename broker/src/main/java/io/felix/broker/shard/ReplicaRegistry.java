package io.felix.broker.shard;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.ProducerStamp;
import io.felix.broker.log.RefusedSequences;
import io.felix.broker.log.RetentionSettings;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
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
  /** Each replica's status as it last published it ({@link #publish}); see {@link Published}. */
  private final Map<ShardId, Published> published = new ConcurrentHashMap<>();
  private volatile NotServingSink notServing = NotServingSink.NONE;
  private volatile LeaderFetchers fetchers = LeaderFetchers.NONE;
  private volatile Duration notServingInterval = Duration.ofSeconds(1);
  private volatile RetentionSettings retention = RetentionSettings.defaults();
  private volatile io.felix.broker.cache.CacheSettings cache = io.felix.broker.cache.CacheSettings.DEFAULTS;
  private final RefusedSequences refusedSequences = new RefusedSequences(System::nanoTime);

  public ReplicaRegistry(int brokerId) {
    this.brokerId = brokerId;
  }

  public int brokerId() {
    return brokerId;
  }

  public AssignmentTable table() {
    return table;
  }

  /** The idempotent batches this broker answered NOT_LEADER, which later ones of their producers must not pass. */
  public RefusedSequences refusedSequences() {
    return refusedSequences;
  }

  /**
   * Notes the answer to a produce for the shard in {@link #refusedSequences}: a NOT_LEADER, or a batch stored. Every
   * produce a client or another broker sends to this broker's replicas is answered through here.
   */
  public CompletionStage<Response> watchProduce(ProduceRequest request, CompletionStage<Response> answer) {
    if (!request.getHasProducer()) {
      return answer;
    }
    ProducerStamp producer = new ProducerStamp(request.getProducerId(), request.getProducerEpoch(),
        request.getBaseSequence());
    return answer.thenApply(response -> {
      if (!Errors.isError(response)) {
        refusedSequences.stored(request.getStream(), request.getShard(), producer);
      } else if (response.getError().getCode() == ErrorCode.NOT_LEADER) {
        refusedSequences.refused(request.getStream(), request.getShard(), producer);
      }
      return response;
    });
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
    published.remove(id);
  }

  /**
   * A replica's status as the replica actor {@code by} published it when its role, epoch or in-sync set last changed:
   * those are current, its offsets are as of that change. What the admin API's lists read (which shards are
   * under-replicated) without a message to each of thousands of replicas; a question about offsets asks the replica.
   */
  record Published(ActorRef<ShardReplica.Command> by, ReplicaStatus status) {}

  /** Publishes {@code status} as the current one of the replica actor {@code by}. */
  void publish(ActorRef<ShardReplica.Command> by, ReplicaStatus status) {
    published.put(status.id(), new Published(by, status));
  }

  /**
   * The status the registered replica of {@code id} published; empty when it published none, or when the one
   * published came from another actor (a replica retired while a new one of the same shard started).
   */
  Optional<ReplicaStatus> published(ShardId id) {
    Published p = published.get(id);
    ActorRef<ShardReplica.Command> current = replicas.get(id);
    return p != null && current != null && p.by().equals(current) ? Optional.of(p.status()) : Optional.empty();
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
