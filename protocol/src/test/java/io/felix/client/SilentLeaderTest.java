package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A leader that takes a produce and never answers it (a stopped or cut-off broker: the connection stays open):
 * once another broker names a newer leader epoch the client re-sends the batch there with the same producer id and
 * sequence, long before its request timeout, and ignores the old leader's late answer. A leader that is merely slow
 * (no newer epoch anywhere) keeps its batch.
 */
class SilentLeaderTest {
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private final ScriptedBrokers fixture = new ScriptedBrokers();

  @AfterEach
  void tearDown() throws Exception {
    fixture.close();
  }

  private static Response.Builder metadata(List<BrokerAddress> brokers, int leader, long epoch, long version) {
    StreamMetadata s = StreamMetadata.newBuilder().setName("s")
        .addShards(ShardMetadata.newBuilder().setShard(0).setLeader(leader).setLeaderEpoch(epoch)).build();
    return Response.newBuilder().setMetadata(
        MetadataResponse.newBuilder().addAllBrokers(brokers).addStreams(s).setAssignmentVersion(version));
  }

  private static ClientSettings settings(ScriptedBroker... brokers) {
    return ClientSettings.builder(ScriptedBrokers.addresses(brokers)).linger(Duration.ZERO)
        .requestTimeout(REQUEST_TIMEOUT).leaderSilenceTimeout(Duration.ofMillis(500)).build();
  }

  /** The next produce request the broker received, skipping metadata reads. */
  private static ProduceRequest nextProduce(ScriptedBroker broker) throws InterruptedException {
    while (true) {
      Request r = broker.nextRequest();
      if (r.hasProduce()) {
        return r.getProduce();
      }
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void batchesUnansweredByAReplacedLeaderAreResentToTheNewOneWithTheSameNumbers() throws Exception {
    ScriptedBroker old = fixture.broker(1);
    ScriptedBroker successor = fixture.broker(2);
    List<BrokerAddress> both = List.of(old.brokerAddress(), successor.brokerAddress());
    AtomicBoolean failedOver = new AtomicBoolean();
    AtomicReference<ScriptedBroker.Exchange> unanswered = new AtomicReference<>();
    old.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(metadata(both, 1, 1, 1));
      } else {
        unanswered.set(e); // taken, never answered: the broker stopped
        failedOver.set(true);
      }
    });
    List<ProduceRequest> atSuccessor = new CopyOnWriteArrayList<>();
    successor.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(failedOver.get() ? metadata(both, 2, 2, 2) : metadata(both, 1, 1, 1));
      } else {
        atSuccessor.add(e.request.getProduce());
        e.reply(Response.newBuilder().setProduce(
            ProduceResponse.newBuilder().setBaseOffset(e.request.getProduce().getBaseSequence())));
      }
    });
    FelixClient client = fixture.client(settings(old, successor));

    long start = System.nanoTime();
    CompletableFuture<RecordMetadata> first = client.produce("s", 0, null, utf8("a"), List.of());
    assertEquals(0, first.get(5, TimeUnit.SECONDS).offset());
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertTrue(tookMs < 3_000, "re-sent within the silence timeout and a metadata read, not the request timeout: "
        + tookMs + " ms");

    ProduceRequest sentToOld = nextProduce(old);
    ProduceRequest resent = atSuccessor.get(0);
    assertEquals(sentToOld.getProducerId(), resent.getProducerId());
    assertEquals(sentToOld.getProducerEpoch(), resent.getProducerEpoch());
    assertEquals(0, resent.getBaseSequence());
    assertEquals(sentToOld.getRecords(), resent.getRecords());

    // The old leader wakes up and answers: ignored, the next batch goes on at the new leader in sequence.
    unanswered.get().reply(Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(77)));
    assertEquals(1, client.produce("s", 0, null, utf8("b"), List.of()).get(5, TimeUnit.SECONDS).offset());
    assertEquals(List.of(0, 1), atSuccessor.stream().map(ProduceRequest::getBaseSequence).toList());
    assertEquals(0, first.join().offset(), "the late answer changed nothing");
  }

  @Test
  void aSlowLeaderWithNoNewerEpochKeepsItsBatch() throws Exception {
    ScriptedBroker slow = fixture.broker(1);
    ScriptedBroker other = fixture.broker(2);
    List<BrokerAddress> both = List.of(slow.brokerAddress(), other.brokerAddress());
    slow.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(metadata(both, 1, 1, 1));
        return;
      }
      Thread t = new Thread(() -> {
        try {
          Thread.sleep(1_500); // three silence timeouts
          e.reply(Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(41)));
        } catch (Exception ignored) {
          // the test ended
        }
      });
      t.setDaemon(true);
      t.start();
    });
    other.script(e -> {
      if (e.request.hasMetadata()) {
        e.reply(metadata(both, 1, 1, 1));
      }
    });
    FelixClient client = fixture.client(settings(slow, other));

    assertEquals(41, client.produce("s", 0, null, utf8("a"), List.of()).get(10, TimeUnit.SECONDS).offset());
    nextProduce(slow);
    for (Request r = slow.pollRequest(100); r != null; r = slow.pollRequest(100)) {
      assertTrue(r.hasMetadata(), "the batch is sent once: " + r);
    }
    for (int i = 0; i < 20; i++) {
      Request r = other.pollRequest(10);
      assertTrue(r == null || r.hasMetadata(), "nothing but metadata reads at the other broker: " + r);
    }
    assertEquals(0, client.retries());
  }
}
