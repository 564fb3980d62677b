package io.felix.client;

import static io.felix.client.ConnectionTest.assertThrowsCompletion;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FetchTest {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private static RecordBatch batch(long base, String... values) {
    List<Record> records = new ArrayList<>();
    for (String v : values) {
      records.add(Record.newBuilder().setKey(ByteString.copyFromUtf8("k" + v))
          .setValue(ByteString.copyFromUtf8(v)).setTimestampMs(9).build());
    }
    return RecordBatch.newBuilder().setBaseOffset(base).setRecordCount(values.length).setLeaderEpoch(1)
        .setRecords(RecordLists.encode(records)).build();
  }

  private ScriptedBroker broker(int id) throws Exception {
    ScriptedBroker b = new ScriptedBroker(id);
    closeables.add(b);
    return b;
  }

  /** Broker 1, leading stream "s": it answers metadata itself and every other request with a new {@code reply}. */
  private ScriptedBroker soleBrokerAnswering(Supplier<Response.Builder> reply) throws Exception {
    ScriptedBroker b = broker(1);
    b.script(e -> e.reply(e.request.hasMetadata()
        ? ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1)
        : reply.get()));
    return b;
  }

  private FelixClient client(ScriptedBroker bootstrap) {
    FelixClient c = new FelixClient(ClientSettings.builder(List.of(bootstrap.address()))
        .retryBackoff(Duration.ofMillis(10)).requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(1)).build());
    closeables.add(c);
    return c;
  }

  @Test
  void recordsBeforeTheRequestedOffsetInTheFirstBatchAreSkipped() throws Exception {
    ScriptedBroker b = broker(1);
    b.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", List.of(b.brokerAddress()), 1));
      } else {
        e.reply(Response.newBuilder().setFetch(FetchResponse.newBuilder()
            .addBatches(batch(10, "a", "b", "c")).addBatches(batch(13, "d"))
            .setCommitOffset(14).setLogStartOffset(0)));
      }
    });
    FetchResult r = client(b).fetch("s", 0, 11, 1 << 20, 100).join();
    assertEquals(List.of(11L, 12L, 13L), r.records().stream().map(FetchedRecord::offset).toList());
    assertEquals(List.of("b", "c", "d"),
        r.records().stream().map(f -> new String(f.value(), StandardCharsets.UTF_8)).toList());
    assertArrayEquals("kb".getBytes(StandardCharsets.UTF_8), r.records().get(0).key());
    assertEquals(14, r.nextOffset());
    assertEquals(14, r.commitOffset());
    assertEquals(List.of("s"), b.nextRequest().getMetadata().getStreamsList());
    assertEquals(11, b.nextRequest().getFetch().getOffset());
  }

  @Test
  void emptyFetchKeepsTheRequestedOffsetAsNext() throws Exception {
    ScriptedBroker b = soleBrokerAnswering(() -> Response.newBuilder()
        .setFetch(FetchResponse.newBuilder().setCommitOffset(5)));
    FetchResult r = client(b).fetch("s", 0, 5, 1024, 0).join();
    assertEquals(List.of(), r.records());
    assertEquals(5, r.nextOffset());
  }

  @Test
  void aFetchThatCrossedOnlyAnEpochMarkerMovesNextOffsetPastIt() throws Exception {
    ScriptedBroker b = soleBrokerAnswering(() -> Response.newBuilder()
        .setFetch(FetchResponse.newBuilder().setCommitOffset(8).setNextOffset(8)));
    FetchResult r = client(b).fetch("s", 0, 7, 1024, 0).join();
    assertEquals(List.of(), r.records());
    assertEquals(8, r.nextOffset());
  }

  @Test
  void fetchFollowsNotLeaderToTheNewLeader() throws Exception {
    ScriptedBroker first = broker(1);
    ScriptedBroker second = broker(2);
    List<BrokerAddress> both = List.of(first.brokerAddress(), second.brokerAddress());
    int[] leader = {1};
    first.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(ScriptedBroker.metadata("s", both, leader));
      } else {
        leader[0] = 2;
        e.reply(Response.newBuilder().setError(Errors.notLeader("s", 0, 2, second.address().toString())));
      }
    });
    second.script(e -> e.reply(Response.newBuilder().setFetch(
        FetchResponse.newBuilder().addBatches(batch(0, "x")).setCommitOffset(1))));
    FetchResult r = client(first).fetch("s", 0, 0, 1024, 0).join();
    assertEquals(List.of(0L), r.records().stream().map(FetchedRecord::offset).toList());
  }

  @Test
  void plainModeFetchAsksItsBrokerToServeWhateverTheLeader() throws Exception {
    ScriptedBroker plain = broker(1);
    ScriptedBroker leader = broker(2);
    plain.script(e -> e.reply(Response.newBuilder().setFetch(
        FetchResponse.newBuilder().addBatches(batch(0, "x")).setCommitOffset(1))));
    FelixClient c = new FelixClient(ClientSettings.builder(List.of(plain.address())).mode(ClientMode.PLAIN).build());
    closeables.add(c);
    assertEquals(1, c.fetch("s", 0, 0, 1024, 0).join().nextOffset());
    io.felix.protocol.client.Request r = plain.nextRequest();
    assertEquals(true, r.getFetch().getForwardIfNotLeader());
    assertEquals(0, leader.connectionCount());
  }

  @Test
  void offsetOutOfRangeIsNotRetried() throws Exception {
    ScriptedBroker b = soleBrokerAnswering(() -> Response.newBuilder()
        .setError(Errors.of(ErrorCode.OFFSET_OUT_OF_RANGE, "offset 99 is past the end 3")));
    FelixException e = FelixException.from(assertThrowsCompletion(client(b).fetch("s", 0, 99, 1024, 0)));
    assertEquals(ErrorCode.OFFSET_OUT_OF_RANGE, e.code());
    assertEquals("fetch s/0@99: OFFSET_OUT_OF_RANGE: offset 99 is past the end 3", e.getMessage());
  }
}
