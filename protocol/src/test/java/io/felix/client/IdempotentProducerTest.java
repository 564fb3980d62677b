package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's side of the idempotent producer against a scripted leader that keeps sequences as a Felix leader
 * does: the producer id, per-shard sequence numbers kept across retries, ambiguous failures retried, and a
 * shard's batches stored in order after a gap.
 */
class IdempotentProducerTest {
  private final ScriptedBrokers fixture = new ScriptedBrokers();

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  /**
   * A leader of stream "s" (one shard) that stores a batch only when its base sequence is the next expected one,
   * answers a re-sent stored batch with its original offset and a gap with OUT_OF_ORDER_SEQUENCE; {@code fault}
   * may replace the answer to an attempt (given the request and whether it was stored) with an error.
   */
  static final class SequencedLeader {
    final List<String> stored = new ArrayList<>();
    final List<ProduceRequest> requests = new ArrayList<>();
    private final Map<Integer, Long> offsetOfSequence = new HashMap<>();
    private int nextSequence;

    synchronized Response.Builder answer(ProduceRequest p, BiFunction<ProduceRequest, Boolean, Response.Builder> fault) {
      requests.add(p);
      Long original = offsetOfSequence.get(p.getBaseSequence());
      if (original != null) {
        return Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(original));
      }
      if (p.getBaseSequence() != nextSequence) {
        return Response.newBuilder().setError(Errors.notAppended(ErrorCode.OUT_OF_ORDER_SEQUENCE,
            "expected " + nextSequence + ", got " + p.getBaseSequence()));
      }
      List<Record> records = RecordLists.decode(p.getRecords()).getRecordsList();
      long base = stored.size();
      offsetOfSequence.put(p.getBaseSequence(), base);
      records.forEach(r -> stored.add(r.getValue().toStringUtf8()));
      nextSequence += records.size();
      Response.Builder replaced = fault.apply(p, true);
      return replaced != null ? replaced
          : Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(base));
    }
  }

  private ScriptedBroker leader(SequencedLeader state, BiFunction<ProduceRequest, Boolean, Response.Builder> fault)
      throws Exception {
    ScriptedBroker b = fixture.broker(1);
    b.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1));
      } else {
        e.reply(state.answer(e.request.getProduce(), fault));
      }
    });
    return b;
  }

  private static ClientSettings.Builder settings(ScriptedBroker b) {
    return ClientSettings.builder(ScriptedBrokers.addresses(b))
        .linger(Duration.ZERO)
        .retryBackoff(Duration.ofMillis(20))
        .retryBackoffMax(Duration.ofMillis(200))
        .requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(1));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void anAmbiguousTimeoutIsRetriedWithTheSameNumbersAndAnsweredWithTheOriginalOffset() throws Exception {
    SequencedLeader state = new SequencedLeader();
    int[] faults = {0};
    ScriptedBroker b = leader(state, (p, appended) -> faults[0]++ == 0
        ? Response.newBuilder().setError(Errors.of(ErrorCode.TIMEOUT, "acks not met; appended")) : null);
    FelixClient client = fixture.client(settings(b).build());

    assertEquals(0, client.produce("s", 0, null, utf8("a"), List.of()).join().offset());
    assertEquals(1, client.produce("s", 0, null, utf8("b"), List.of()).join().offset());

    assertEquals(List.of("a", "b"), state.stored, "the retried batch is stored once");
    assertEquals(1, client.retries());
    List<ProduceRequest> sent = state.requests;
    assertEquals(3, sent.size());
    for (ProduceRequest p : sent) {
      assertTrue(p.getHasProducer());
      assertEquals(ScriptedBroker.PRODUCER_ID_BASE + 1, p.getProducerId(), "the id the broker handed out");
      assertEquals(0, p.getProducerEpoch());
    }
    assertEquals(List.of(0, 0, 1), sent.stream().map(ProduceRequest::getBaseSequence).toList());
  }

  @Test
  void afterAGapTheShardsBatchesAreResentInOrderWithFiveInFlight() throws Exception {
    SequencedLeader state = new SequencedLeader();
    boolean[] lostFirst = {false};
    ScriptedBroker b = fixture.broker(1);
    b.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1));
        return;
      }
      ProduceRequest p = e.request.getProduce();
      synchronized (lostFirst) {
        if (p.getBaseSequence() == 0 && !lostFirst[0]) {
          lostFirst[0] = true; // the first batch never reaches the log: the others find a gap
          e.reply(Response.newBuilder().setError(Errors.of(ErrorCode.TIMEOUT, "no quorum")));
          return;
        }
      }
      e.reply(state.answer(p, (x, appended) -> null));
    });
    FelixClient client = fixture.client(settings(b).batchSizeBytes(1).maxInFlightBatchesPerShard(5)
        .linger(Duration.ofSeconds(30)).build());
    List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    for (String v : List.of("a", "b", "c", "d", "e")) {
      futures.add(client.produce("s", 0, null, utf8(v), List.of()));
    }
    client.flush();

    assertEquals(List.of("a", "b", "c", "d", "e"), state.stored);
    assertEquals(List.of(0L, 1L, 2L, 3L, 4L), futures.stream().map(f -> f.join().offset()).toList());
    assertTrue(client.retries() >= 1);
  }

  @Test
  void withIdempotenceOffBatchesCarryNoProducer() throws Exception {
    SequencedLeader state = new SequencedLeader();
    ScriptedBroker b = leader(state, (p, appended) -> null);
    FelixClient client = fixture.client(settings(b).idempotence(false).build());
    assertEquals(0, client.produce("s", 0, null, utf8("a"), List.of()).join().offset());
    assertFalse(state.requests.get(0).getHasProducer());
  }

  @Test
  void moreThanFiveBatchesInFlightPerShardIsRefusedWithIdempotence() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> ClientSettings.builder("127.0.0.1:1").maxInFlightBatchesPerShard(6).build());
    assertEquals("maxInFlightBatchesPerShard must be at most 5 with idempotence, got 6", e.getMessage());
    ClientSettings.builder("127.0.0.1:1").maxInFlightBatchesPerShard(6).idempotence(false).build();
  }
}
