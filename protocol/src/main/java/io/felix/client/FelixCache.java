package io.felix.client;

import com.google.protobuf.ByteString;
import io.felix.protocol.Errors;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.GetRequest;
import io.felix.protocol.client.MultiGetRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One cache, from {@link FelixClient#cache(String)}. Writes are records produced through the client's producer
 * (batched, idempotent, retried; forwarded in plain mode), so a put is acknowledged as a produce is, with the
 * client's acks. Reads go to the leader of the key's shard (cluster mode) or to the connected broker, which forwards
 * them (plain mode); they see committed entries only, so after a put acknowledged with acks QUORUM or ALL a get of
 * the key returns that entry or a later one. Reads are retried on NOT_LEADER, TIMEOUT, NOT_ENOUGH_REPLICAS and
 * connection failures within the request timeout. Thread-safe.
 */
public final class FelixCache {
  private final FelixClient client;
  private final String name;
  private final ClientSettings settings;
  private final MetadataCache metadata;

  FelixCache(FelixClient client, String name, ClientSettings settings, MetadataCache metadata) {
    this.client = client;
    this.name = name;
    this.settings = settings;
    this.metadata = metadata;
  }

  public String name() {
    return name;
  }

  /** An entry read from the cache. */
  public record Entry(byte[] key, byte[] value, int shard, long offset, long expiresAtMs) {}

  /** Puts {@code value} under {@code key} with the cache's default TTL. */
  public CompletableFuture<RecordMetadata> put(byte[] key, byte[] value) {
    return put(key, value, Duration.ZERO);
  }

  /** Puts {@code value} under {@code key}, readable for {@code ttl} from now (zero: the cache's default TTL). */
  public CompletableFuture<RecordMetadata> put(byte[] key, byte[] value, Duration ttl) {
    var entry = CacheEntries.put(ByteString.copyFrom(key), ByteString.copyFrom(value), ttl.toMillis(), 0);
    return client.produce(name, key, value, entry.getHeadersList());
  }

  /** Deletes the key (writes a tombstone). */
  public CompletableFuture<RecordMetadata> delete(byte[] key) {
    return client.produce(name, key, new byte[0], CacheEntries.delete(ByteString.copyFrom(key), 0).getHeadersList());
  }

  /** The key's latest committed entry; empty when there is none, it was deleted or it expired. */
  public CompletableFuture<Optional<Entry>> get(byte[] key) {
    return get(key, ReadFrom.LEADER);
  }

  /** As {@link #get(byte[])}, read from the replica {@code from} says. */
  public CompletableFuture<Optional<Entry>> get(byte[] key, ReadFrom from) {
    boolean anyReplica = from == ReadFrom.ANY_REPLICA;
    Request.Builder request = Request.newBuilder().setGet(GetRequest.newBuilder().setCache(name)
        .setKey(ByteString.copyFrom(key)).setForwardIfNotLeader(settings.mode() == ClientMode.PLAIN || anyReplica)
        .setAllowFollower(anyReplica));
    if (anyReplica) {
      return client.sendRetried(name, -1, () -> client.anyBroker(name), request, settings.requestTimeout(),
          "follower read of cache " + name).thenApply(response -> entry(response.getGet().getEntry()));
    }
    return shardOf(key).thenCompose(shard -> send(shard, request))
        .thenApply(response -> entry(response.getGet().getEntry()));
  }

  /** Each key's latest committed entry (empty where it has none), in the order of {@code keys}. */
  public CompletableFuture<List<Optional<Entry>>> getAll(List<byte[]> keys) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    return metadata.stream(name).thenCompose(view -> {
      failIfUnknown(view);
      Map<Integer, List<ByteString>> byShard = new LinkedHashMap<>();
      for (byte[] key : keys) {
        int shard = settings.mode() == ClientMode.PLAIN ? -1 : KeyHash.shardFor(key, view.shardIds());
        byShard.computeIfAbsent(shard, s -> new ArrayList<>()).add(ByteString.copyFrom(key));
      }
      List<CompletableFuture<Response>> parts = new ArrayList<>();
      byShard.forEach((shard, shardKeys) -> parts.add(send(shard, Request.newBuilder().setMultiGet(
          MultiGetRequest.newBuilder().setCache(name).addAllKeys(shardKeys)
              .setForwardIfNotLeader(settings.mode() == ClientMode.PLAIN)))));
      return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
        Map<ByteString, CacheValue> values = new HashMap<>();
        parts.forEach(p -> p.join().getMultiGet().getEntriesList().forEach(v -> values.put(v.getKey(), v)));
        List<Optional<Entry>> out = new ArrayList<>();
        keys.forEach(k -> out.add(entry(values.get(ByteString.copyFrom(k)))));
        return out;
      });
    });
  }

  private static Optional<Entry> entry(CacheValue v) {
    return v == null || !v.getFound() ? Optional.empty() : Optional.of(new Entry(v.getKey().toByteArray(),
        v.getValue().toByteArray(), v.getShard(), v.getOffset(), v.getExpiresAtMs()));
  }

  private CompletableFuture<Integer> shardOf(byte[] key) {
    if (settings.mode() == ClientMode.PLAIN) {
      return CompletableFuture.completedFuture(-1); // the broker chooses and forwards
    }
    return metadata.stream(name).thenApply(view -> {
      failIfUnknown(view);
      return KeyHash.shardFor(key, view.shardIds());
    });
  }

  private void failIfUnknown(ClusterView.StreamView view) {
    if (view.error() != ErrorCode.NONE || view.shardIds().length == 0) {
      throw FelixException.broker(Errors.of(ErrorCode.UNKNOWN_CACHE, "no cache named '" + name + "'"));
    }
  }

  /** Sends to the shard's leader (any shard, -1, in plain mode: the connected broker), retrying as the class says. */
  private CompletableFuture<Response> send(int shard, Request.Builder request) {
    return client.sendRetried(name, shard, shard < 0, request, settings.requestTimeout(),
        "read of cache " + name + (shard >= 0 ? "/" + shard : ""));
  }
}
