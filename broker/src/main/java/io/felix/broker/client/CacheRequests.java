package io.felix.broker.client;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.cache.CacheSettings;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.ShardReplica;
import io.felix.client.CacheEntries;
import io.felix.client.KeyHash;
import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.DeleteRequest;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.GetRequest;
import io.felix.protocol.client.GetResponse;
import io.felix.protocol.client.MultiGetRequest;
import io.felix.protocol.client.MultiGetResponse;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.PutResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Response;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.BiFunction;

/**
 * The cache requests: Put and Delete become a produce of one entry record to the key's shard (so they are appended,
 * replicated, acknowledged and forwarded in plain mode exactly as records are); Get and MultiGet go to the leaders of
 * the keys' shards (forwarded in plain mode), which answer from committed entries. A request naming no cache gets
 * UNKNOWN_CACHE, a key or value over felix.cache's limits ENTRY_TOO_LARGE; neither changes anything.
 */
final class CacheRequests {
  private final ReplicaRegistry registry;
  private final ProduceForwarder forwarder;
  private final ClientListenerSettings settings;
  private final BiFunction<ProduceRequest, String, CompletionStage<Response>> produce;

  /** @param produce appends a produce request as the given principal's (ClientRequests' produce path) */
  CacheRequests(ReplicaRegistry registry, ProduceForwarder forwarder, ClientListenerSettings settings,
      BiFunction<ProduceRequest, String, CompletionStage<Response>> produce) {
    this.registry = registry;
    this.forwarder = forwarder;
    this.settings = settings;
    this.produce = produce;
  }

  /** The shard of a key in a cache (or stream) of {@code shards} shards: as clients choose it for stream keys. */
  static int shardOf(ByteString key, int shards) {
    return KeyHash.shardIndex(key.toByteArray(), shards);
  }

  /** @param principal who asks (the produce path checks it again where the write is forwarded) */
  CompletionStage<Response> put(io.felix.protocol.client.PutRequest r, String principal) {
    if (r.getTtlMs() < 0) {
      return done(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, "ttl_ms must be >= 0")));
    }
    Record entry = CacheEntries.put(r.getKey(), r.getValue(), r.getTtlMs(), System.currentTimeMillis());
    return write(r.getCache(), entry, principal, ProduceRequest.newBuilder().setAcks(r.getAcks())
        .setTimeoutMs(r.getTimeoutMs())
        .setForwardIfNotLeader(r.getForwardIfNotLeader()).setProducerId(r.getProducerId())
        .setProducerEpoch(r.getProducerEpoch()).setBaseSequence(r.getSequence()).setHasProducer(r.getHasProducer()));
  }

  CompletionStage<Response> delete(DeleteRequest r, String principal) {
    Record entry = CacheEntries.delete(r.getKey(), System.currentTimeMillis());
    return write(r.getCache(), entry, principal, ProduceRequest.newBuilder().setAcks(r.getAcks())
        .setTimeoutMs(r.getTimeoutMs())
        .setForwardIfNotLeader(r.getForwardIfNotLeader()).setProducerId(r.getProducerId())
        .setProducerEpoch(r.getProducerEpoch()).setBaseSequence(r.getSequence()).setHasProducer(r.getHasProducer()));
  }

  private CompletionStage<Response> write(String cache, Record entry, String principal,
      ProduceRequest.Builder request) {
    Optional<Response> refused = checkCache(cache).or(() -> checkEntries(List.of(entry)));
    if (refused.isPresent()) {
      return done(refused.get());
    }
    int shard = shardOf(entry.getKey(), registry.table().streams().get(cache));
    ProduceRequest produceRequest = request.setStream(cache).setShard(shard)
        .setRecords(RecordLists.encode(List.of(entry))).build();
    return produce.apply(produceRequest, principal).thenApply(response -> Errors.isError(response) ? response
        : Response.newBuilder().setPut(PutResponse.newBuilder().setShard(shard)
            .setOffset(response.getProduce().getBaseOffset())
            .setLeaderEpoch(response.getProduce().getLeaderEpoch())).build());
  }

  CompletionStage<Response> get(GetRequest r) {
    return multiGet(MultiGetRequest.newBuilder().setCache(r.getCache()).addKeys(r.getKey())
        .setForwardIfNotLeader(r.getForwardIfNotLeader()).setAllowFollower(r.getAllowFollower()).build())
        .thenApply(response -> Errors.isError(response) ? response : Response.newBuilder()
            .setGet(GetResponse.newBuilder().setEntry(response.getMultiGet().getEntries(0))).build());
  }

  /** Reads every key from its shard's leader; any shard's error fails the whole request (it changed nothing). */
  CompletionStage<Response> multiGet(MultiGetRequest r) {
    Optional<Response> refused = checkCache(r.getCache()).or(() -> checkKeys(r.getKeysList()));
    if (refused.isPresent()) {
      return done(refused.get());
    }
    int shards = registry.table().streams().get(r.getCache());
    List<ByteString> keys = r.getKeysList();
    Map<Integer, List<Integer>> byShard = new LinkedHashMap<>(); // shard -> the positions of its keys in the request
    for (int i = 0; i < keys.size(); i++) {
      byShard.computeIfAbsent(shardOf(keys.get(i), shards), s -> new ArrayList<>()).add(i);
    }
    // Each shard's leader reads its part in parallel: the answer's byte bound is split evenly among them.
    int share = r.getMaxBytes() <= 0 ? 0 : Math.max(1, r.getMaxBytes() / byShard.size());
    List<List<Integer>> positions = new ArrayList<>(byShard.values());
    List<CompletableFuture<Response>> parts = new ArrayList<>();
    byShard.forEach((shard, at) -> parts.add(readShard(r.getCache(), shard, at.stream().map(keys::get).toList(),
        r.getForwardIfNotLeader(), r.getAllowFollower(), share)));
    if (parts.size() == 1) {
      return parts.get(0); // one shard's answer holds the request's keys in their order
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
      CacheValue[] values = new CacheValue[keys.size()];
      for (int p = 0; p < parts.size(); p++) {
        Response answer = parts.get(p).join();
        if (Errors.isError(answer)) {
          return answer;
        }
        List<Integer> at = positions.get(p);
        for (int i = 0; i < at.size(); i++) {
          values[at.get(i)] = answer.getMultiGet().getEntries(i);
        }
      }
      return Response.newBuilder().setMultiGet(MultiGetResponse.newBuilder().addAllEntries(Arrays.asList(values)))
          .build();
    });
  }

  /**
   * Reads {@code keys} of one shard within {@code maxBytes} of values (0: no bound): from the local replica when it
   * leads; with {@code allowFollower} from the local follower first, and from the leader when that follower may not
   * answer (not in contact with its leader, still catching up).
   */
  private CompletableFuture<Response> readShard(String cache, int shard, List<ByteString> keys, boolean forward,
      boolean allowFollower, int maxBytes) {
    ShardId id = new ShardId(cache, shard);
    Optional<ShardAssignment> a = registry.table().shard(id);
    int leader = a.map(ShardAssignment::leader).orElse(ShardAssignment.NO_LEADER);
    var local = registry.replica(id);
    if (local.isPresent() && (leader == registry.brokerId() || allowFollower)) {
      CompletableFuture<Response> reply = new CompletableFuture<>();
      local.get().tell(new ShardReplica.CacheRead(keys, allowFollower, maxBytes, reply));
      return leader == registry.brokerId() ? reply : reply.thenCompose(answer -> Errors.isError(answer)
          && answer.getError().getCode() == ErrorCode.NOT_LEADER
          ? readShard(cache, shard, keys, forward, false, maxBytes) : CompletableFuture.completedFuture(answer));
    }
    if (forward && leader != ShardAssignment.NO_LEADER && leader != registry.brokerId()) {
      return forwarder.forwardCacheRead(leader, shard, MultiGetRequest.newBuilder().setCache(cache)
          .addAllKeys(keys).setMaxBytes(maxBytes).build(), settings.forwardGrace());
    }
    return CompletableFuture.completedFuture(ShardReplica.notLeader(id, leader, registry));
  }

  private Optional<Response> checkCache(String cache) {
    AssignmentTable table = registry.table();
    if (cache.isEmpty() || !table.streams().containsKey(cache) || !table.streamConfig(cache).forCache()
        || InternalStreams.isInternal(cache)) {
      return Optional.of(Errors.response(0, Errors.notAppended(ErrorCode.UNKNOWN_CACHE, "no cache named '" + cache
          + "'" + (table.streams().containsKey(cache) ? " ('" + cache + "' is a stream)" : ""))));
    }
    return Optional.empty();
  }

  /** ENTRY_TOO_LARGE for an entry whose key is empty or too long or whose value is too long; for any write path. */
  Optional<Response> checkEntries(List<Record> entries) {
    CacheSettings limits = registry.cache();
    for (Record entry : entries) {
      Optional<Response> key = checkKeys(List.of(entry.getKey()));
      if (key.isPresent()) {
        return key;
      }
      if (entry.getValue().size() > limits.maxValueBytes()) {
        return Optional.of(Errors.response(0, Errors.notAppended(ErrorCode.ENTRY_TOO_LARGE, "a cache entry's value "
            + "has " + entry.getValue().size() + " bytes, over felix.cache.max-value-bytes (" + limits.maxValueBytes()
            + ")")));
      }
    }
    return Optional.empty();
  }

  private Optional<Response> checkKeys(List<ByteString> keys) {
    int max = registry.cache().maxKeyBytes();
    for (ByteString key : keys) {
      if (key.isEmpty() || key.size() > max) {
        return Optional.of(Errors.response(0, Errors.notAppended(ErrorCode.ENTRY_TOO_LARGE, "a cache key must have "
            + "1 to " + max + " bytes (felix.cache.max-key-bytes), this one has " + key.size())));
      }
    }
    return Optional.empty();
  }

  private static CompletionStage<Response> done(Response response) {
    return CompletableFuture.completedFuture(response);
  }
}
