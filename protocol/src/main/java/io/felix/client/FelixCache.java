package io.felix.client;

import com.google.protobuf.ByteString;
import io.felix.protocol.Errors;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.GetRequest;
import io.felix.protocol.client.MultiGetRequest;
import io.felix.protocol.client.MultiGetResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * One cache, from {@link FelixClient#cache(String)}. Writes are records produced through the client's producer
 * (batched, idempotent, retried; forwarded in plain mode), so a put is acknowledged as a produce is, with the
 * client's acks. Reads go to the leader of the key's shard (cluster mode) or to the connected broker, which forwards
 * them (plain mode); they see committed entries only, so after a put acknowledged with acks QUORUM or ALL a get of
 * the key returns that entry or a later one. Reads are retried on NOT_LEADER, TIMEOUT, NOT_ENOUGH_REPLICAS and
 * connection failures within the request timeout. Gets from the leader that are issued concurrently go in MultiGet
 * requests of many keys per shard ({@link CacheGetBatcher}): a get never waits for a timer, only for the requests of
 * its shard ahead of it. Thread-safe.
 */
public final class FelixCache {
  private final FelixClient client;
  private final String name;
  private final ClientSettings settings;
  private final MetadataCache metadata;
  private final CacheGetBatcher gets;

  FelixCache(FelixClient client, String name, ClientSettings settings, MetadataCache metadata) {
    this.client = client;
    this.name = name;
    this.settings = settings;
    this.metadata = metadata;
    // Half a frame of values per answer: room for the keys and for the one value a shard reads past the bound.
    this.gets = new CacheGetBatcher(this::multiGet, settings.cacheGetBatchKeys(), settings.cacheGetsInFlightPerShard(),
        settings.maxFrameBytes() / 2);
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
    if (from == ReadFrom.ANY_REPLICA) {
      Request.Builder request = Request.newBuilder().setGet(GetRequest.newBuilder().setCache(name)
          .setKey(ByteString.copyFrom(key)).setForwardIfNotLeader(true).setAllowFollower(true));
      return client.sendRetried(name, -1, () -> client.anyBroker(name), request, settings.requestTimeout(),
          "follower read of cache " + name).thenApply(response -> entry(response.getGet().getEntry()));
    }
    ByteString k = ByteString.copyFrom(key);
    return shardOf(key).thenCompose(shard -> gets.get(shard, k)).thenApply(FelixCache::entry);
  }

  /**
   * Each key's latest committed entry (empty where it has none), in the order of {@code keys}: the gets of each
   * shard go in as few MultiGet requests as the batch limits allow.
   */
  public CompletableFuture<List<Optional<Entry>>> getAll(List<byte[]> keys) {
    List<CompletableFuture<Optional<Entry>>> each = new ArrayList<>(keys.size());
    keys.forEach(key -> each.add(get(key)));
    return CompletableFuture.allOf(each.toArray(CompletableFuture[]::new))
        .thenApply(done -> each.stream().map(CompletableFuture::join).toList());
  }

  /** One MultiGet request of {@code keys} of {@code shard} (-1: plain mode), retried as the class says. */
  private CompletableFuture<MultiGetResponse> multiGet(int shard, List<ByteString> keys, int maxBytes) {
    return send(shard, Request.newBuilder().setMultiGet(MultiGetRequest.newBuilder().setCache(name).addAllKeys(keys)
        .setForwardIfNotLeader(settings.mode() == ClientMode.PLAIN).setMaxBytes(maxBytes)))
        .thenApply(Response::getMultiGet);
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
