package io.felix.client;

import static io.felix.client.ConnectionTest.assertThrowsCompletion;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.StreamMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProducerTest {
  private final ScriptedBrokers fixture = new ScriptedBrokers();

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  private ScriptedBroker broker(int id) throws Exception {
    return fixture.broker(id);
  }

  private FelixClient client(ClientSettings settings) {
    return fixture.client(settings);
  }

  private static ClientSettings.Builder settings(ScriptedBroker... bootstrap) {
    return ClientSettings.builder(ScriptedBrokers.addresses(bootstrap))
        .linger(Duration.ofSeconds(30))
        .retryBackoff(Duration.ofMillis(20))
        .retryBackoffMax(Duration.ofMillis(500))
        .requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(1));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> values(ProduceRequest p) {
    List<String> out = new ArrayList<>();
    for (Record r : RecordLists.decode(p.getRecords()).getRecordsList()) {
      out.add(r.getValue().toStringUtf8());
    }
    return out;
  }

  /**
   * Answers metadata with the given leaders (all brokers listed) and every produce with the next offsets of its
   * shard, unless {@code produceOverride} returns an answer for it.
   */
  private static ScriptedBroker.Script leaderScript(String stream, List<BrokerAddress> brokers, int[] leaders,
      Function<Request, Response.Builder> produceOverride) {
    Map<Integer, Long> next = new HashMap<>();
    return e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata(stream, brokers, leaders));
        return;
      }
      Response.Builder override = produceOverride.apply(e.request);
      if (override != null) {
        e.reply(override);
        return;
      }
      ProduceRequest p = e.request.getProduce();
      int count = RecordLists.countRecords(p.getRecords());
      long base;
      synchronized (next) {
        base = next.getOrDefault(p.getShard(), 0L);
        next.put(p.getShard(), base + count);
      }
      e.reply(Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(base)));
    };
  }

  private static Request nextProduce(ScriptedBroker b) throws InterruptedException {
    while (true) {
      Request r = b.nextRequest();
      if (r.hasProduce()) {
        return r;
      }
    }
  }

  @Test
  void recordsLingeringForOneShardLeaveAsOneBatchOnFlush() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1, 1}, r -> null));
    FelixClient client = client(settings(b).build());
    List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
    for (String v : List.of("a", "b", "c")) {
      fs.add(client.produce("s", 1, null, utf8(v), List.of()));
    }
    client.flush();
    Request produce = nextProduce(b);
    assertEquals(1, produce.getProduce().getShard());
    assertEquals(List.of("a", "b", "c"), values(produce.getProduce()));
    assertEquals("s", produce.getProduce().getStream());
    assertEquals(1000, produce.getProduce().getTimeoutMs());
    assertFalse(produce.getProduce().getForwardIfNotLeader(), "cluster mode wants NOT_LEADER, not forwarding");
    assertEquals(List.of(new RecordMetadata("s", 1, 0), new RecordMetadata("s", 1, 1), new RecordMetadata("s", 1, 2)),
        fs.stream().map(CompletableFuture::join).toList());
    assertNull(b.pollRequest(100), "one request only");
  }

  @Test
  void batchSizeSplitsRecordsWithoutWaitingForLinger() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> null));
    // Batch size of exactly two records' encoded size.
    byte[] value = utf8("v".repeat(20));
    Record sample = Record.newBuilder().setValue(com.google.protobuf.ByteString.copyFrom(value))
        .setTimestampMs(System.currentTimeMillis()).build();
    int size = RecordLists.encodedSize(sample);
    FelixClient client = client(settings(b).batchSizeBytes(size * 2).build());
    List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      fs.add(client.produce("s", 0, null, value, List.of()));
    }
    // Two full batches go without flush; the fifth record waits for linger (30 s), so it comes only on flush.
    assertEquals(2, values(nextProduce(b).getProduce()).size());
    assertEquals(2, values(nextProduce(b).getProduce()).size());
    assertNull(b.pollRequest(200));
    client.flush();
    assertEquals(1, values(nextProduce(b).getProduce()).size());
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), fs.stream().map(f -> f.join().offset()).toList());
  }

  @Test
  void lingerSendsAPartialBatchOnItsOwn() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> null));
    FelixClient client = client(settings(b).linger(Duration.ofMillis(50)).build());
    RecordMetadata m = client.produce("s", null, utf8("x")).get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(new RecordMetadata("s", 0, 0), m);
  }

  @Test
  void keyedRecordGoesToItsMurmur2Shard() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1, 1, 1, 1}, r -> null));
    FelixClient client = client(settings(b).linger(Duration.ZERO).build());
    // murmur2("1") = -1993445489; & 0x7fffffff = 154038159; % 4 = 3
    assertEquals(3, client.produce("s", utf8("1"), utf8("v")).join().shard());
    // murmur2("12") = 126087238; % 4 = 2
    assertEquals(2, client.produce("s", utf8("12"), utf8("v")).join().shard());
  }

  @Test
  void unkeyedRecordsStickToOneShardPerBatchThenMoveOn() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1, 1, 1}, r -> null));
    FelixClient client = client(settings(b).build());
    CompletableFuture<RecordMetadata> a = client.produce("s", null, utf8("a"));
    CompletableFuture<RecordMetadata> bb = client.produce("s", null, utf8("b"));
    client.flush();
    CompletableFuture<RecordMetadata> c = client.produce("s", null, utf8("c"));
    client.flush();
    CompletableFuture<RecordMetadata> d = client.produce("s", new byte[0], utf8("d"));
    client.flush();
    assertEquals(List.of(0, 0, 1, 2), List.of(a.join().shard(), bb.join().shard(), c.join().shard(), d.join().shard()));
  }

  @Test
  void unkeyedRecordsMoveToTheNextShardWhenTheirBatchFills() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1, 1, 1}, r -> null));
    byte[] value = utf8("v".repeat(20));
    Record sample = Record.newBuilder().setValue(com.google.protobuf.ByteString.copyFrom(value))
        .setTimestampMs(System.currentTimeMillis()).build();
    // room for two and a half records: the third overflows, so the batch closes and the next shard takes it
    FelixClient client = client(settings(b).batchSizeBytes(RecordLists.encodedSize(sample) * 5 / 2).build());
    List<CompletableFuture<RecordMetadata>> fs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      fs.add(client.produce("s", null, value));
    }
    client.flush();
    assertEquals(List.of(0, 0, 1, 1, 2, 2, 0), fs.stream().map(f -> f.join().shard()).toList());
  }

  @Test
  void notLeaderRedirectsTheBatchToTheNamedLeader() throws Exception {
    ScriptedBroker first = broker(1);
    ScriptedBroker second = broker(2);
    List<BrokerAddress> both = List.of(first.brokerAddress(), second.brokerAddress());
    // The first broker led shard 0 when the client asked; by the produce it has moved to broker 2.
    int[] firstView = {1};
    first.script(leaderScript("s", both, firstView, r -> {
      firstView[0] = 2;
      return Response.newBuilder().setError(Errors.notLeader("s", 0, 2, second.address().toString()));
    }));
    second.script(leaderScript("s", both, new int[] {2}, r -> r.hasProduce()
        ? Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(100)) : null));
    FelixClient client = client(settings(first).linger(Duration.ZERO).build());
    RecordMetadata m = client.produce("s", 0, null, utf8("x"), List.of()).get(5, java.util.concurrent.TimeUnit.SECONDS);
    assertEquals(new RecordMetadata("s", 0, 100), m);
    assertEquals(List.of("x"), values(nextProduce(first).getProduce()));
    assertEquals(List.of("x"), values(nextProduce(second).getProduce()));
    assertEquals(1, client.retries());
  }

  @Test
  void batchWaitsWhileTheShardHasNoLeaderAndGoesOnceOneIsKnown() throws Exception {
    ScriptedBroker b = broker(1);
    int[] metadataCalls = {0};
    int[] leaders = {-1};
    b.script(e -> {
      if (e.request.hasMetadata()) {
        synchronized (metadataCalls) {
          // the third answer onwards names a leader
          if (++metadataCalls[0] >= 3) {
            leaders[0] = 1;
          }
        }
      }
      leaderScript("s", List.of(b.brokerAddress()), leaders, r -> null).onRequest(e);
    });
    FelixClient client = client(settings(b).linger(Duration.ZERO).build());
    assertEquals(new RecordMetadata("s", 0, 0), client.produce("s", 0, null, utf8("x"), List.of()).join());
    synchronized (metadataCalls) {
      assertTrue(metadataCalls[0] >= 3, "metadata was re-read until a leader was named");
    }
    assertTrue(client.retries() >= 2);
  }

  @Test
  void deadLeaderIsAbandonedForTheLeaderNamedByFreshMetadata() throws Exception {
    ScriptedBroker dead = broker(1);
    ScriptedBroker alive = broker(2);
    BrokerAddress deadAddress = dead.brokerAddress();
    dead.close();
    int[] leaders = {1};
    alive.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(deadAddress, alive.brokerAddress()), leaders));
        leaders[0] = 2; // failover: the next answer names broker 2
      } else {
        e.reply(Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(7)));
      }
    });
    FelixClient client = client(settings(alive).linger(Duration.ZERO).build());
    RecordMetadata m = client.produce("s", 0, null, utf8("x"), List.of()).join();
    assertEquals(new RecordMetadata("s", 0, 7), m);
    // at least one refused connection (nothing written, so retried); more if the retry beat the metadata answer
    assertTrue(client.retries() >= 1);
  }

  @Test
  void notAppendedErrorsAreRetriedWithGrowingBackoff() throws Exception {
    ScriptedBroker b = broker(1);
    List<Long> arrivals = new ArrayList<>();
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> {
      synchronized (arrivals) {
        arrivals.add(System.nanoTime());
        return arrivals.size() <= 2
            ? Response.newBuilder().setError(Errors.notAppended(ErrorCode.NOT_ENOUGH_REPLICAS, "1 of 3 up"))
            : null;
      }
    }));
    FelixClient client = client(settings(b).linger(Duration.ZERO).retryBackoff(Duration.ofMillis(100))
        .retryBackoffMax(Duration.ofSeconds(1)).build());
    assertEquals(0, client.produce("s", 0, null, utf8("x"), List.of()).join().offset());
    assertEquals(2, client.retries());
    synchronized (arrivals) {
      assertEquals(3, arrivals.size());
      assertTrue(arrivals.get(1) - arrivals.get(0) >= 100_000_000L, "first backoff is at least 100 ms");
      assertTrue(arrivals.get(2) - arrivals.get(1) >= 200_000_000L, "second backoff is doubled");
    }
  }

  @Test
  void ambiguousTimeoutFailsWithoutRetryWhenIdempotenceIsOff() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1},
        r -> Response.newBuilder().setError(Errors.of(ErrorCode.TIMEOUT, "acks not met in 1000 ms"))));
    FelixClient client = client(settings(b).linger(Duration.ZERO).idempotence(false).build());
    FelixException e = FelixException.from(assertThrowsCompletion(client.produce("s", 0, null, utf8("x"), List.of())));
    assertEquals(ErrorCode.TIMEOUT, e.code());
    assertFalse(e.notAppended(), "the batch may have been stored");
    assertTrue(e.getMessage().contains("failed after 1 attempt(s)"), e.getMessage());
    assertEquals(0, client.retries());
  }

  @Test
  void ambiguousTimeoutIsRetriedWhenAllowed() throws Exception {
    ScriptedBroker b = broker(1);
    int[] calls = {0};
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> {
      synchronized (calls) {
        return calls[0]++ == 0 ? Response.newBuilder().setError(Errors.of(ErrorCode.TIMEOUT, "slow")) : null;
      }
    }));
    FelixClient client = client(settings(b).linger(Duration.ZERO).idempotence(false).retryAmbiguousErrors(true)
        .build());
    assertEquals(0, client.produce("s", 0, null, utf8("x"), List.of()).join().offset());
    assertEquals(1, client.retries());
  }

  @Test
  void retriesStopAtTheRetryLimit() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1},
        r -> Response.newBuilder().setError(Errors.notLeader("s", 0, 1, b.address().toString()))));
    FelixClient client = client(settings(b).linger(Duration.ZERO).retries(2).build());
    FelixException e = FelixException.from(assertThrowsCompletion(client.produce("s", 0, null, utf8("x"), List.of())));
    assertEquals(ErrorCode.NOT_LEADER, e.code());
    assertTrue(e.getMessage().contains("failed after 3 attempt(s)"), e.getMessage());
    assertEquals(2, client.retries());
  }

  @Test
  void retriedBatchStaysAheadOfLaterBatchesOfItsShard() throws Exception {
    ScriptedBroker b = broker(1);
    int[] calls = {0};
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> {
      synchronized (calls) {
        return calls[0]++ == 0 ? Response.newBuilder().setError(Errors.notLeader("s", 0, 1, "")) : null;
      }
    }));
    // batch size 1 byte: every record is its own batch
    FelixClient client = client(settings(b).batchSizeBytes(1).build());
    CompletableFuture<RecordMetadata> a = client.produce("s", 0, null, utf8("a"), List.of());
    CompletableFuture<RecordMetadata> bb = client.produce("s", 0, null, utf8("b"), List.of());
    CompletableFuture<RecordMetadata> c = client.produce("s", 0, null, utf8("c"), List.of());
    client.flush();
    List<String> sent = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      sent.addAll(values(nextProduce(b).getProduce()));
    }
    assertEquals(List.of("a", "a", "b", "c"), sent);
    assertEquals(List.of(0L, 1L, 2L), List.of(a.join().offset(), bb.join().offset(), c.join().offset()));
  }

  @Test
  void connectionLostAfterWritingFailsTheBatchAsAmbiguousWhenIdempotenceIsOff() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1));
      } else {
        e.dropConnection();
      }
    });
    FelixClient client = client(settings(b).linger(Duration.ZERO).idempotence(false).build());
    FelixException e = FelixException.from(assertThrowsCompletion(client.produce("s", 0, null, utf8("x"), List.of())));
    assertEquals(FelixException.Kind.CONNECTION_FAILED, e.kind());
    assertFalse(e.notAppended());
  }

  @Test
  void plainModeSendsEveryBatchToItsOneBrokerWhateverTheLeader() throws Exception {
    ScriptedBroker plain = broker(1);
    ScriptedBroker leader = broker(2);
    List<BrokerAddress> both = List.of(plain.brokerAddress(), leader.brokerAddress());
    plain.script(leaderScript("s", both, new int[] {2, 2}, r -> null));
    FelixClient client = client(settings(plain).mode(ClientMode.PLAIN).linger(Duration.ZERO).build());
    assertEquals(new RecordMetadata("s", 1, 0), client.produce("s", 1, null, utf8("x"), List.of()).join());
    ProduceRequest sent = nextProduce(plain).getProduce();
    assertEquals(List.of("x"), values(sent));
    assertTrue(sent.getForwardIfNotLeader(), "plain mode asks the broker to forward");
    assertNull(leader.pollRequest(100));
    assertEquals(0, leader.connectionCount());
  }

  @Test
  void plainModeMovesToTheNextBootstrapBrokerWhenTheFirstIsDown() throws Exception {
    ScriptedBroker down = broker(1);
    down.close();
    ScriptedBroker up = broker(2);
    up.script(leaderScript("s", List.of(up.brokerAddress()), new int[] {2}, r -> null));
    FelixClient client = client(settings(down, up).mode(ClientMode.PLAIN).linger(Duration.ZERO).build());
    assertEquals(new RecordMetadata("s", 0, 0), client.produce("s", 0, null, utf8("x"), List.of()).join());
  }

  @Test
  void unknownStreamAndUnknownShardFailNamingThem() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(e -> {
      Response.Builder answer = ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1, 1);
      if (e.request.getMetadata().getStreamsList().contains("missing")) {
        answer.getMetadataBuilder().addStreams(
            StreamMetadata.newBuilder().setName("missing").setError(ErrorCode.UNKNOWN_STREAM));
      }
      e.reply(answer);
    });
    FelixClient client = client(settings(b).build());
    FelixException missing = FelixException.from(assertThrowsCompletion(client.produce("missing", null, utf8("x"))));
    assertEquals(ErrorCode.UNKNOWN_STREAM, missing.code());
    assertEquals("UNKNOWN_STREAM: cannot produce to missing: no such stream", missing.getMessage());
    FelixException shard = FelixException.from(assertThrowsCompletion(client.produce("s", 7, null, utf8("x"), List.of())));
    assertEquals("UNKNOWN_SHARD: stream s has no shard 7; shards are [0, 1]", shard.getMessage());
  }

  /**
   * A stream just created can be unknown to the broker a client asks first (its table lags the others'): the other
   * bootstrap brokers are asked before the produce fails UNKNOWN_STREAM.
   */
  @Test
  void aStreamUnknownToOneBrokerIsLookedUpOnTheNextBeforeTheProduceFails() throws Exception {
    ScriptedBroker lagging = broker(1);
    ScriptedBroker current = broker(2);
    lagging.script(e -> {
      Response.Builder answer = ScriptedBroker.metadata("other", List.of(lagging.brokerAddress()), 1, 1);
      answer.getMetadataBuilder().addStreams(
          StreamMetadata.newBuilder().setName("new").setError(ErrorCode.UNKNOWN_STREAM));
      e.reply(answer);
    });
    current.script(leaderScript("new", List.of(current.brokerAddress()), new int[] {2}, r -> null));
    FelixClient client = client(settings(lagging, current).linger(Duration.ZERO).build());
    assertEquals(new RecordMetadata("new", 0, 0), client.produce("new", 0, null, utf8("x"), List.of()).join());

    FelixClient alone = client(settings(lagging).linger(Duration.ZERO).build());
    assertEquals(ErrorCode.UNKNOWN_STREAM,
        FelixException.from(assertThrowsCompletion(alone.produce("new", null, utf8("x")))).code(),
        "unknown to every bootstrap broker: it fails");
  }

  /**
   * A leader whose assignment table is older than the one the client read the stream from does not know the stream
   * yet: its UNKNOWN_STREAM is retried. From a table as new as the client's, the stream is gone: no retry.
   */
  @Test
  void unknownStreamFromABrokerWithAnOlderTableIsRetriedFromAnEqualTableItFails() throws Exception {
    ScriptedBroker b = broker(1);
    java.util.concurrent.atomic.AtomicInteger produces = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong answeringVersion = new java.util.concurrent.atomic.AtomicLong(0);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> produces.incrementAndGet() == 1
        ? Response.newBuilder().setError(Errors.notAppended(ErrorCode.UNKNOWN_STREAM, "no stream named 's'")
            .toBuilder().setAssignmentVersion(answeringVersion.get())) : null));
    FelixClient client = client(settings(b).linger(Duration.ZERO).build());
    assertEquals(new RecordMetadata("s", 0, 0), client.produce("s", 0, null, utf8("x"), List.of()).join(),
        "version 0 answered, the client read version 1: retried");
    assertEquals(2, produces.get());

    produces.set(0);
    answeringVersion.set(1);
    FelixException gone = FelixException.from(assertThrowsCompletion(client.produce("s", 0, null, utf8("y"),
        List.of())));
    assertEquals(ErrorCode.UNKNOWN_STREAM, gone.code());
    assertEquals(1, produces.get(), "a table as new as the client's: not retried");
  }

  @Test
  void recordTooLargeForAFrameFailsAtOnceAndSendsNothing() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(leaderScript("s", List.of(b.brokerAddress()), new int[] {1}, r -> null));
    FelixClient client = client(settings(b).maxFrameBytes(64 * 1024).batchSizeBytes(16 * 1024)
        .linger(Duration.ZERO).build());
    Throwable e = assertThrowsCompletion(client.produce("s", 0, null, new byte[64 * 1024], List.of()));
    assertTrue(e instanceof IllegalArgumentException, e.toString());
    assertEquals("record of 65551 bytes does not fit in a frame of at most 65536 bytes", e.getMessage());
    assertEquals(0, client.produce("s", 0, null, new byte[20 * 1024], List.of()).join().offset(),
        "a record above batch size but within the frame goes alone");
  }

  @Test
  void closeFailsWhatCannotBeDeliveredAndRefusesNewRecords() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1));
      } // produce: never answered
    });
    FelixClient client = new FelixClient(settings(b).requestTimeout(Duration.ofMillis(400))
        .ackTimeout(Duration.ofMillis(100)).build());
    CompletableFuture<RecordMetadata> f = client.produce("s", 0, null, utf8("x"), List.of());
    client.close();
    assertTrue(f.isCompletedExceptionally(), "close completes or fails everything pending");
    FelixException after = FelixException.from(assertThrowsCompletion(client.produce("s", 0, null, utf8("y"), List.of())));
    assertEquals(FelixException.Kind.CLIENT_CLOSED, after.kind());
  }
}
