package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.MultiGetResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** The batcher against a sender whose requests the test answers by hand, one at a time, in any order. */
class CacheGetBatcherTest {
  private static final int MAX_BYTES = 1000;

  /** A request the batcher sent, waiting for the test's answer. */
  private record Sent(int shard, List<String> keys, int maxBytes, CompletableFuture<MultiGetResponse> answer) {}

  private final List<Sent> sent = new ArrayList<>();

  private CacheGetBatcher batcher(int maxKeys, int inFlightPerShard) {
    return new CacheGetBatcher((shard, keys, maxBytes) -> {
      Sent s = new Sent(shard, keys.stream().map(ByteString::toStringUtf8).toList(), maxBytes,
          new CompletableFuture<>());
      sent.add(s);
      return s.answer();
    }, maxKeys, inFlightPerShard, MAX_BYTES);
  }

  private static ByteString key(String k) {
    return ByteString.copyFromUtf8(k);
  }

  /** Answers every key of the request found, with the value "v" + key, except those named not read. */
  private static void answer(Sent request, String... notRead) {
    MultiGetResponse.Builder b = MultiGetResponse.newBuilder();
    for (String k : request.keys()) {
      boolean skipped = List.of(notRead).contains(k);
      b.addEntries(CacheValue.newBuilder().setKey(key(k)).setFound(!skipped).setNotRead(skipped)
          .setValue(skipped ? ByteString.EMPTY : key("v" + k)));
    }
    request.answer().complete(b.build());
  }

  private List<List<String>> sentKeys() {
    return sent.stream().map(Sent::keys).toList();
  }

  @Test
  void aGetGoesAtOnceWhileItsShardHasRoomInFlightAndTheGetsBehindGoTogetherWhenAnAnswerComes() throws Exception {
    CacheGetBatcher gets = batcher(3, 2);
    CompletableFuture<CacheValue> a = gets.get(0, key("a"));
    gets.get(0, key("b"));
    List<CompletableFuture<CacheValue>> queued = new ArrayList<>();
    for (String k : List.of("c", "d", "e", "f")) {
      queued.add(gets.get(0, key(k)));
    }
    gets.get(1, key("x")); // another shard: its own room in flight
    assertEquals(List.of(List.of("a"), List.of("b"), List.of("x")), sentKeys());
    assertEquals(List.of(0, 0, 1), sent.stream().map(Sent::shard).toList());
    assertEquals(MAX_BYTES, sent.get(0).maxBytes());

    answer(sent.get(0));
    assertEquals("va", a.get().getValue().toStringUtf8());
    assertEquals(List.of("c", "d", "e"), sent.get(3).keys(), "at most 3 keys per request");
    assertEquals(4, sent.size(), "two of shard 0's requests are out again");

    answer(sent.get(1));
    assertEquals(List.of("f"), sent.get(4).keys());
    answer(sent.get(3));
    answer(sent.get(4));
    assertEquals(List.of("vc", "vd", "ve", "vf"), queued.stream().map(f -> f.join().getValue().toStringUtf8())
        .toList());
    assertEquals(5, sent.size(), "nothing is left to send");
  }

  @Test
  void keysAnAnswerDidNotReadGoFirstInTheShardsNextRequest() {
    CacheGetBatcher gets = batcher(10, 1);
    gets.get(0, key("a"));
    CompletableFuture<CacheValue> b = gets.get(0, key("b"));
    CompletableFuture<CacheValue> c = gets.get(0, key("c"));
    CompletableFuture<CacheValue> d = gets.get(0, key("d"));
    answer(sent.get(0));
    assertEquals(List.of("b", "c", "d"), sent.get(1).keys());
    CompletableFuture<CacheValue> e = gets.get(0, key("e"));

    answer(sent.get(1), "c", "d");
    assertEquals("vb", b.join().getValue().toStringUtf8());
    assertFalse(c.isDone() || d.isDone(), "not read: still waiting");
    assertEquals(List.of("c", "d", "e"), sent.get(2).keys());
    answer(sent.get(2));
    assertEquals(List.of("vc", "vd", "ve"), List.of(c, d, e).stream().map(f -> f.join().getValue().toStringUtf8())
        .toList());
  }

  @Test
  void aFailedRequestFailsEveryGetInItAndTheShardsNextRequestStillGoes() {
    CacheGetBatcher gets = batcher(10, 1);
    CompletableFuture<CacheValue> a = gets.get(0, key("a"));
    CompletableFuture<CacheValue> b = gets.get(0, key("b"));
    RuntimeException refused = new RuntimeException("UNKNOWN_CACHE");
    sent.get(0).answer().completeExceptionally(refused);
    ExecutionException failed = assertThrows(ExecutionException.class, a::get);
    assertSame(refused, failed.getCause());
    assertEquals(List.of("b"), sent.get(1).keys());
    answer(sent.get(1));
    assertEquals("vb", b.join().getValue().toStringUtf8());
  }

  @Test
  void anAnswerWithAnotherNumberOfEntriesThanKeysFailsItsGets() {
    CacheGetBatcher gets = batcher(10, 1);
    gets.get(0, key("a"));
    CompletableFuture<CacheValue> b = gets.get(0, key("b"));
    CompletableFuture<CacheValue> c = gets.get(0, key("c"));
    answer(sent.get(0));
    sent.get(1).answer().complete(MultiGetResponse.newBuilder().addEntries(CacheValue.newBuilder().setKey(key("b"))
        .setFound(true)).build());
    ExecutionException failed = assertThrows(ExecutionException.class, c::get);
    assertEquals("a MultiGet of 2 keys was answered with 1 entries", failed.getCause().getMessage());
    assertTrue(b.isCompletedExceptionally());
  }
}
