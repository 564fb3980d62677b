package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.Errors;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where the client sends metadata reads and produces when brokers disagree, lag, stay silent or are down. */
class RoutingTest {
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
        .linger(Duration.ZERO)
        .retryBackoff(Duration.ofMillis(50))
        .retryBackoffMax(Duration.ofMillis(200))
        .connectTimeout(Duration.ofSeconds(2))
        .requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(1))
        .deliveryTimeout(Duration.ofSeconds(4));
  }

  /** Stream s with one shard led by {@code leader} at {@code epoch}, read from a table of {@code version}. */
  private static Response.Builder metadata(List<BrokerAddress> brokers, long version, int leader, long epoch) {
    return Response.newBuilder().setMetadata(MetadataResponse.newBuilder().addAllBrokers(brokers)
        .addStreams(StreamMetadata.newBuilder().setName("s")
            .addShards(ShardMetadata.newBuilder().setShard(0).setLeader(leader).setLeaderEpoch(epoch)))
        .setAssignmentVersion(version));
  }

  private static Response.Builder stored(long offset) {
    return Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(offset));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static int produces(ScriptedBroker b) throws InterruptedException {
    int n = 0;
    for (Request r = b.pollRequest(100); r != null; r = b.pollRequest(100)) {
      n += r.hasProduce() ? 1 : 0;
    }
    return n;
  }

  /**
   * The observed failure: broker 0, the first bootstrap broker, holds an old table naming broker 1 as leader;
   * broker 1 answers NOT_LEADER naming broker 2 at a newer epoch. The client must follow the newer epoch and ask
   * broker 2 for metadata, not re-read the old table from broker 0 and send to broker 1 again until the
   * delivery timeout.
   */
  @Test
  void aLaggingBootstrapBrokerCannotSendTheClientBackToTheOldLeader() throws Exception {
    ScriptedBroker lagging = broker(0);
    ScriptedBroker old = broker(1);
    ScriptedBroker leader = broker(2);
    List<BrokerAddress> all = List.of(lagging.brokerAddress(), old.brokerAddress(), leader.brokerAddress());
    lagging.script(e -> e.reply(metadata(all, 1, 1, 1)));
    old.script(e -> e.reply(e.request.hasMetadata() ? metadata(all, 2, 2, 2)
        : Response.newBuilder().setError(Errors.notLeader("s", 0, 2, leader.address().toString(), 2, 2))));
    leader.script(e -> e.reply(e.request.hasMetadata() ? metadata(all, 2, 2, 2) : stored(40)));
    FelixClient client = client(settings(lagging).build());
    long start = System.nanoTime();
    assertEquals(new RecordMetadata("s", 0, 40),
        client.produce("s", 0, null, utf8("x"), List.of()).get(3, TimeUnit.SECONDS));
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "the newer leader was tried at once");
    assertEquals(1, produces(old));
    assertEquals(1, client.retries());
    // Later batches go to the new leader too, though broker 0 keeps answering with its old table.
    client.metadata("s").get(3, TimeUnit.SECONDS);
    assertEquals(new RecordMetadata("s", 0, 40),
        client.produce("s", 0, null, utf8("y"), List.of()).get(3, TimeUnit.SECONDS));
    assertEquals(0, produces(old));
  }

  /** NOT_LEADER without a usable hint: the next reads start at the next bootstrap broker, not the first again. */
  @Test
  void metadataReadsStartAtEachBootstrapBrokerInTurn() throws Exception {
    ScriptedBroker a = broker(0);
    ScriptedBroker b = broker(1);
    ScriptedBroker c = broker(2);
    List<BrokerAddress> all = List.of(a.brokerAddress(), b.brokerAddress(), c.brokerAddress());
    for (ScriptedBroker x : List.of(a, b, c)) {
      x.script(e -> e.reply(metadata(all, 1, 0, 1)));
    }
    FelixClient client = client(settings(a, b, c).build());
    List<Integer> asked = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      client.metadata("s").get(3, TimeUnit.SECONDS);
      for (ScriptedBroker x : List.of(a, b, c)) {
        if (x.pollRequest(0) != null) {
          asked.add(x.id);
        }
      }
    }
    assertEquals(List.of(0, 1, 2, 0), asked);
  }

  /**
   * The first bootstrap broker takes connections but never answers (a stopped or hung process): the first
   * produce still goes through within about connectTimeout, and later reads ask that broker last.
   */
  @Test
  void aSilentFirstBootstrapBrokerDelaysTheFirstReadOnlyByConnectTimeout() throws Exception {
    ScriptedBroker silent = broker(0);
    ScriptedBroker b = broker(1);
    ScriptedBroker c = broker(2);
    List<BrokerAddress> all = List.of(b.brokerAddress(), c.brokerAddress());
    b.script(e -> e.reply(e.request.hasMetadata() ? metadata(all, 1, 2, 1) : stored(0)));
    c.script(e -> e.reply(e.request.hasMetadata() ? metadata(all, 1, 2, 1) : stored(7)));
    FelixClient client = client(settings(silent, b, c).connectTimeout(Duration.ofMillis(500)).build());
    long start = System.nanoTime();
    assertEquals(new RecordMetadata("s", 0, 7),
        client.produce("s", 0, null, utf8("x"), List.of()).get(3, TimeUnit.SECONDS));
    // 500 ms for the silent broker, then one answer and one produce; before, the produce failed after 5 s
    assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(2500));
    assertTrue(silent.pollRequest(0).hasMetadata());
    for (int i = 0; i < 3; i++) {
      client.metadata("s").get(3, TimeUnit.SECONDS);
    }
    assertNull(silent.pollRequest(200), "a broker that did not answer is asked last");
  }

  /** Plain mode: one connection failure may be a blip; the second in a row moves the client on. */
  @Test
  void plainModeMovesOnAfterTheConfiguredNumberOfConnectionFailures() throws Exception {
    for (int failoverAfter : new int[] {1, 2, 3}) {
      ScriptedBroker first = broker(10 + failoverAfter);
      ScriptedBroker second = broker(20 + failoverAfter);
      List<BrokerAddress> all = List.of(first.brokerAddress(), second.brokerAddress());
      AtomicInteger stored = new AtomicInteger();
      ScriptedBroker.Script answer =
          e -> e.reply(e.request.hasMetadata() ? metadata(all, 1, 0, 1) : stored(stored.getAndIncrement()));
      first.script(answer);
      second.script(answer);
      FelixClient client = client(settings(first, second).mode(ClientMode.PLAIN)
          .plainModeFailoverAfter(failoverAfter).build());
      assertEquals(0, client.produce("s", 0, null, utf8("x"), List.of()).get(3, TimeUnit.SECONDS).offset());
      first.close(); // refuses connections from now on
      Thread.sleep(500); // until the client's reader saw the close, so the next produce is refused, not lost
      assertEquals(1, client.produce("s", 0, null, utf8("y"), List.of()).get(3, TimeUnit.SECONDS).offset());
      assertEquals(failoverAfter, client.retries(), "one refused attempt per failure before moving on");
      assertEquals(1, produces(second));
    }
  }
}
