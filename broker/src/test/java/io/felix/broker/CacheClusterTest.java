package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import io.felix.broker.node.BrokerNode;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixCache;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.ReadFrom;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.GetRequest;
import io.felix.protocol.client.PutRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Caches on three brokers in one JVM: the admin API, put/get/getAll/delete/TTL in cluster and plain mode, bad
 * input refused without a change, and a failover of a leader broker under writes after which no acknowledged put
 * is lost and no get returns a value older than the latest put acknowledged before it was sent.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CacheClusterTest {
  private static final Logger log = LoggerFactory.getLogger(CacheClusterTest.class);

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String s(Optional<FelixCache.Entry> e) {
    return e.map(x -> new String(x.value(), StandardCharsets.UTF_8)).orElse(null);
  }

  private static FelixClient plainClient(BrokerNode via) {
    return new FelixClient(ClientSettings.builder(via.endpoint().clientAddress()).mode(ClientMode.PLAIN)
        .linger(Duration.ofMillis(1)).build());
  }

  private static boolean unchecked(java.util.concurrent.Callable<Boolean> check) {
    try {
      return check.call();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static ErrorCode errorOf(CompletableFuture<?> future) throws InterruptedException {
    try {
      future.get(20, TimeUnit.SECONDS);
      return ErrorCode.NONE;
    } catch (ExecutionException e) {
      return FelixException.from(e.getCause()).code();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no answer", e);
    }
  }

  private static long commitOffsets(BrokerCluster cluster, BrokerNode via, String cache) {
    long sum = 0;
    for (JsonNode shard : cluster.get(via, "/v1/caches/" + cache).json().get("shard_assignments")) {
      sum += shard.get("commit_offset").asLong();
    }
    return sum;
  }

  @Test
  void adminApiEntriesTtlPlainModeAndBadInput() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode via = cluster.live().get(0);
      cluster.awaitBrokersLive(via, 3);
      assertEquals(201, cluster.post(via, "/v1/streams", "{\"name\":\"events\",\"shards\":3}").status());
      assertEquals(201, cluster.post(via, "/v1/caches",
          "{\"name\":\"sessions\",\"shards\":3,\"replication_factor\":3,\"default_ttl_ms\":0}").status());
      // One name space: a cache cannot take a stream's name, nor a stream a cache's.
      assertEquals(409, cluster.post(via, "/v1/caches", "{\"name\":\"events\",\"shards\":3}").status());
      assertEquals(409, cluster.post(via, "/v1/streams", "{\"name\":\"sessions\",\"shards\":3}").status());
      assertEquals(400, cluster.post(via, "/v1/caches", "{\"name\":\"x\",\"shards\":3,\"ttl\":1}").status());
      assertEquals(400, cluster.post(via, "/v1/caches", "{\"name\":\"x\",\"shards\":3,\"default_ttl_ms\":-1}")
          .status());
      JsonNode caches = cluster.get(via, "/v1/caches").json();
      assertEquals(1, caches.size(), caches.toString());
      assertEquals("sessions", caches.get(0).get("name").asText());
      assertEquals(404, cluster.get(via, "/v1/caches/events").status());
      assertEquals(3, cluster.get(via, "/v1/caches/sessions").json().get("shard_assignments").size());
      JsonNode status = cluster.get(via, "/v1/replication-status?format=json").json();
      assertTrue(status.get("streams").has("sessions"), status.toString());
      cluster.awaitReady();

      try (FelixClient client = cluster.client(); FelixClient plain = plainClient(via)) {
        FelixCache cache = client.cache("sessions");
        cache.put(b("k1"), b("v1")).get(20, TimeUnit.SECONDS);
        assertEquals("v1", s(cache.get(b("k1")).get(20, TimeUnit.SECONDS)));
        cache.put(b("k1"), b("v2")).get(20, TimeUnit.SECONDS);
        cache.put(b("k2"), b("w1")).get(20, TimeUnit.SECONDS);
        assertEquals("v2", s(cache.get(b("k1")).get(20, TimeUnit.SECONDS)));
        FelixCache viaPlain = plain.cache("sessions");
        List<String> all = viaPlain.getAll(List.of(b("k2"), b("k1"), b("nobody"))).get(20, TimeUnit.SECONDS)
            .stream().map(CacheClusterTest::s).toList();
        assertEquals(java.util.Arrays.asList("w1", "v2", null), all);
        viaPlain.put(b("k3"), b("z1")).get(20, TimeUnit.SECONDS);
        assertEquals("z1", s(cache.get(b("k3")).get(20, TimeUnit.SECONDS)));

        cache.delete(b("k1")).get(20, TimeUnit.SECONDS);
        assertEquals(Optional.empty(), cache.get(b("k1")).get(20, TimeUnit.SECONDS));
        assertEquals(Optional.empty(), viaPlain.get(b("k1")).get(20, TimeUnit.SECONDS));

        cache.put(b("short"), b("lived"), Duration.ofMillis(800)).get(20, TimeUnit.SECONDS);
        assertEquals("lived", s(cache.get(b("short")).get(20, TimeUnit.SECONDS)));
        Thread.sleep(1000);
        assertEquals(Optional.empty(), cache.get(b("short")).get(20, TimeUnit.SECONDS));

        // More values than one answer may hold in the client's frame: each MultiGet answer stops at half a frame
        // of values (per shard), and the keys it did not read are asked again, in both modes.
        ClientSettings.Builder smallFrames = ClientSettings.builder(via.endpoint().clientAddress())
            .maxFrameBytes(64 * 1024).batchSizeBytes(16 * 1024);
        try (FelixClient small = new FelixClient(smallFrames.build());
            FelixClient smallPlain = new FelixClient(smallFrames.mode(ClientMode.PLAIN).build())) {
          List<byte[]> keys = new java.util.ArrayList<>();
          for (int i = 0; i < 24; i++) {
            byte[] value = new byte[8 * 1024];
            java.util.Arrays.fill(value, (byte) ('a' + i));
            keys.add(b("big" + i));
            small.cache("sessions").put(keys.get(i), value).get(20, TimeUnit.SECONDS);
          }
          for (FelixClient reader : List.of(small, smallPlain)) {
            List<Optional<FelixCache.Entry>> read = reader.cache("sessions").getAll(keys).get(20, TimeUnit.SECONDS);
            for (int i = 0; i < 24; i++) {
              byte[] value = read.get(i).orElseThrow().value();
              assertEquals(8 * 1024, value.length, "big" + i);
              assertEquals('a' + i, value[0], "big" + i);
            }
          }
        }

        // Bad input: its error, and nothing appended.
        long before = commitOffsets(cluster, via, "sessions");
        assertEquals(ErrorCode.ENTRY_TOO_LARGE, errorOf(cache.put(new byte[2048], b("v"))));
        assertEquals(ErrorCode.ENTRY_TOO_LARGE, errorOf(cache.put(b("k2"), new byte[2 * 1024 * 1024 - 4096])));
        assertEquals(ErrorCode.ENTRY_TOO_LARGE, errorOf(cache.get(new byte[2048])));
        assertEquals(ErrorCode.UNKNOWN_CACHE, errorOf(client.cache("nope").get(b("k1"))));
        assertEquals(ErrorCode.UNKNOWN_CACHE, errorOf(viaPlain.get(b("k1")).thenCompose(x ->
            plain.cache("events").get(b("k1")))));
        assertEquals(before, commitOffsets(cluster, via, "sessions"));
        assertEquals("w1", s(cache.get(b("k2")).get(20, TimeUnit.SECONDS)));
      }

      // The protocol's own Put and Get, as a client without the library sends them.
      try (RawClient raw = new RawClient(via.endpoint().clientHost(), via.endpoint().clientPort())) {
        Response put = raw.call(Request.newBuilder().setPut(PutRequest.newBuilder().setCache("sessions")
            .setKey(ByteString.copyFromUtf8("raw")).setValue(ByteString.copyFromUtf8("r1")).setAcks(Acks.QUORUM)
            .setForwardIfNotLeader(true)));
        assertFalse(put.hasError() && put.getError().getCode() != ErrorCode.NONE, put.toString());
        Response get = raw.call(Request.newBuilder().setGet(GetRequest.newBuilder().setCache("sessions")
            .setKey(ByteString.copyFromUtf8("raw")).setForwardIfNotLeader(true)));
        assertEquals("r1", get.getGet().getEntry().getValue().toStringUtf8());
        assertEquals(put.getPut().getOffset(), get.getGet().getEntry().getOffset());
        Response unknown = raw.call(Request.newBuilder().setPut(PutRequest.newBuilder().setCache("events")
            .setKey(ByteString.copyFromUtf8("raw")).setValue(ByteString.copyFromUtf8("r1"))));
        assertEquals(ErrorCode.UNKNOWN_CACHE, unknown.getError().getCode());
        assertTrue(unknown.getError().getNotAppended());

        // Follower reads: asked without forwarding, every broker (two of them followers of the key's shard) answers
        // from its own replica once it has learned the commit offset past the put; without allow_follower a
        // follower answers NOT_LEADER.
        for (BrokerNode broker : cluster.live()) {
          try (RawClient direct = new RawClient(broker.endpoint().clientHost(), broker.endpoint().clientPort())) {
            BrokerCluster.await(Duration.ofSeconds(10), "broker " + broker.id() + " reads the put from its replica",
                () -> unchecked(() -> {
                  Response r = direct.call(Request.newBuilder().setGet(GetRequest.newBuilder().setCache("sessions")
                      .setKey(ByteString.copyFromUtf8("raw")).setAllowFollower(true)));
                  return r.getGet().getEntry().getFound()
                      && r.getGet().getEntry().getOffset() == put.getPut().getOffset();
                }));
            Response leaderOnly = direct.call(Request.newBuilder().setGet(GetRequest.newBuilder()
                .setCache("sessions").setKey(ByteString.copyFromUtf8("raw"))));
            boolean leads = broker.id() == cluster.get(via, "/v1/caches/sessions").json().get("shard_assignments")
                .get(put.getPut().getShard()).get("leader").asInt();
            assertEquals(leads ? ErrorCode.NONE : ErrorCode.NOT_LEADER, leaderOnly.getError().getCode(),
                "broker " + broker.id() + ": " + leaderOnly);
          }
        }
      }
      try (FelixClient client = cluster.client()) {
        FelixCache cache = client.cache("sessions");
        cache.put(b("spread"), b("s1")).get(20, TimeUnit.SECONDS);
        BrokerCluster.await(Duration.ofSeconds(10), "follower reads through the client see the put", () ->
            unchecked(() -> {
              for (int i = 0; i < 3; i++) { // one read per broker in turn
                if (!"s1".equals(s(cache.get(b("spread"), ReadFrom.ANY_REPLICA).get(20, TimeUnit.SECONDS)))) {
                  return false;
                }
              }
              return true;
            }));
      }
      assertEquals(204, cluster.delete(via, "/v1/caches/sessions").status());
      assertEquals(404, cluster.delete(via, "/v1/caches/events").status());
      assertEquals(0, cluster.get(via, "/v1/caches").json().size());
    }
  }

  @Test
  void afterALeaderBrokerStopsNoAcknowledgedPutIsLostAndNoGetIsStale() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off"))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode victim = cluster.live().stream().filter(b -> b != host).reduce((a, x) -> x).orElseThrow();
      cluster.awaitBrokersLive(host, 3);
      assertEquals(201, cluster.post(host, "/v1/caches", "{\"name\":\"kv\",\"shards\":6,\"replication_factor\":3}")
          .status());
      cluster.awaitReady();
      assertEquals(200, cluster.post(host, "/v1/placement/pause", "").status());
      List<Integer> led = new ArrayList<>();
      for (JsonNode shard : cluster.get(host, "/v1/caches/kv").json().get("shard_assignments")) {
        if (shard.get("leader").asInt() == victim.id()) {
          led.add(shard.get("shard").asInt());
        }
      }
      assertEquals(2, led.size());

      int keys = 40;
      Map<Integer, Integer> acked = new ConcurrentHashMap<>(); // key -> highest acknowledged version
      AtomicInteger stale = new AtomicInteger();
      AtomicInteger reads = new AtomicInteger();
      AtomicBoolean stop = new AtomicBoolean();
      List<String> problems = java.util.Collections.synchronizedList(new ArrayList<>());
      try (FelixClient writerClient = cluster.client(); FelixClient readerClient = cluster.client()) {
        FelixCache writer = writerClient.cache("kv");
        FelixCache reader = readerClient.cache("kv");
        Thread writes = new Thread(() -> {
          for (int version = 1; !stop.get(); version++) {
            List<CompletableFuture<?>> round = new ArrayList<>();
            for (int k = 0; k < keys; k++) {
              int key = k;
              int v = version;
              round.add(writer.put(b("key-" + k), b(Integer.toString(v)))
                  .thenAccept(m -> acked.merge(key, v, Math::max)));
            }
            for (CompletableFuture<?> f : round) {
              try {
                f.get(30, TimeUnit.SECONDS);
              } catch (Exception e) {
                // not acknowledged: may or may not be stored; the checks allow either
              }
            }
          }
        }, "cache-writer");
        Thread gets = new Thread(() -> {
          while (!stop.get()) {
            for (int k = 0; k < keys && !stop.get(); k++) {
              int floor = acked.getOrDefault(k, 0);
              try {
                Optional<FelixCache.Entry> e = reader.get(b("key-" + k)).get(30, TimeUnit.SECONDS);
                int seen = e.map(x -> Integer.parseInt(new String(x.value(), StandardCharsets.UTF_8))).orElse(0);
                reads.incrementAndGet();
                if (seen < floor) {
                  stale.incrementAndGet();
                  problems.add("key-" + k + ": read version " + seen + " after version " + floor + " was acked");
                }
              } catch (Exception e) {
                // a read that fails (retries exhausted during the failover) returns nothing stale
              }
            }
          }
        }, "cache-reader");
        writes.start();
        gets.start();
        BrokerCluster.await(Duration.ofSeconds(30), "puts acknowledged before the stop",
            () -> acked.size() == keys && acked.values().stream().allMatch(v -> v >= 3));
        cluster.stop(victim);
        BrokerCluster.await(Duration.ofSeconds(60), "new leaders of the stopped broker's shards", () -> {
          JsonNode shards = cluster.get(host, "/v1/caches/kv").json().get("shard_assignments");
          return led.stream().allMatch(s -> shards.get(s).get("leader").asInt() != victim.id());
        });
        Map<Integer, Integer> atFailover = Map.copyOf(acked);
        BrokerCluster.await(Duration.ofSeconds(60), "puts acknowledged under the new leaders",
            () -> atFailover.entrySet().stream().allMatch(e -> acked.get(e.getKey()) >= e.getValue() + 3));
        stop.set(true);
        writes.join(60_000);
        gets.join(60_000);

        for (int k = 0; k < keys; k++) {
          Optional<FelixCache.Entry> e = reader.get(b("key-" + k)).get(30, TimeUnit.SECONDS);
          assertTrue(e.isPresent(), "key-" + k + " lost");
          int seen = Integer.parseInt(new String(e.get().value(), StandardCharsets.UTF_8));
          assertTrue(seen >= acked.get(k), "key-" + k + ": read " + seen + ", acked " + acked.get(k));
        }
        log.info("CACHE FAILOVER: {} gets checked, {} stale; last acknowledged versions {}", reads.get(), stale.get(),
            acked);
        assertEquals(0, stale.get(), String.join("\n", problems));
        assertTrue(reads.get() > keys, "reads went on throughout: " + reads.get());
        JsonNode after = cluster.get(host, "/v1/caches/kv").json().get("shard_assignments");
        for (int shard : led) {
          assertNotEquals(victim.id(), after.get(shard).get("leader").asInt());
        }
      }
    }
  }
}
