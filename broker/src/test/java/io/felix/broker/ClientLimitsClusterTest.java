package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.ClientListener;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attacks of issue 13 against one real broker on real sockets, with small limits: each is refused with
 * RESOURCE_LIMIT (or its connection held back or closed), and a well-behaved client on another connection keeps
 * being served during and after. Attackers connect from other loopback addresses (127.0.0.2 and up) so that the
 * per-address limit does not count them against the well-behaved client on 127.0.0.1.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientLimitsClusterTest {
  private static final int PER_CONNECTION = 2 * 1024 * 1024;
  private static final int BROKER_BUDGET = 4 * 1024 * 1024;
  private static final int PADDING = 900 * 1024;
  private static final String LIMITS = "felix.client-listener {\n"
      + "  max-queued-request-bytes = " + BROKER_BUDGET + "\n"
      + "  max-in-flight-bytes-per-connection = " + PER_CONNECTION + "\n"
      + "  max-connections = 8\n"
      + "  max-connections-per-address = 4\n"
      + "  idle-timeout = 6 s\n"
      + "  max-fetch-wait = 1500 ms\n"
      + "  max-metadata-response-bytes = 64 KiB\n"
      + "}\n";

  private TestBrokers brokers;
  private ClientListener listener;
  private String host;
  private int port;

  @BeforeAll
  void startBroker(@TempDir Path dir) {
    brokers = new TestBrokers(dir, 1, LIMITS);
    List<ShardAssignment> shards = List.of(
        new ShardAssignment(new ShardId("s", 0), List.of(0), List.of(), 0, 1),
        new ShardAssignment(new ShardId("quiet", 0), List.of(0), List.of(), 0, 1));
    brokers.apply(brokers.table(Map.of("s", 1, "quiet", 1), shards));
    for (ShardAssignment a : shards) {
      TestBrokers.await(a.id() + " led and settled", Duration.ofSeconds(20), () -> {
        ReplicaStatus status = brokers.describe(0, a.id());
        return status.role() == ReplicaRole.LEADER && !status.recovering();
      });
    }
    listener = brokers.plane(0).clientListener();
    host = brokers.endpoint(0).host();
    port = brokers.endpoint(0).clientPort();
  }

  @AfterAll
  void stopBroker() {
    brokers.close();
  }

  @BeforeEach
  void noConnectionLeftFromTheLastTest() {
    TestBrokers.await("no connection open and no request bytes held", Duration.ofSeconds(10),
        () -> listener.openConnections() == 0 && listener.queuedRequestBytes() == 0);
  }

  @Test
  void aMetadataRequestNamingOneStreamMillionsOfTimesIsAnsweredOnceAndTooManyNamesOrTooLargeAnAnswerAreRefused()
      throws Exception {
    MetadataRequest.Builder repeated = MetadataRequest.newBuilder();
    for (int i = 0; i < 2_700_000; i++) {
      repeated.addStreams("s");
    }
    try (RawClient raw = new RawClient(host, port)) {
      Response once = raw.call(Request.newBuilder().setMetadata(repeated));
      assertEquals(ErrorCode.NONE, once.getError().getCode());
      assertEquals(1, once.getMetadata().getStreamsCount());
      assertEquals("s", once.getMetadata().getStreams(0).getName());
      assertEquals(1, once.getMetadata().getStreams(0).getShardsCount());
      assertTrue(once.getSerializedSize() < 1024, "answer of " + once.getSerializedSize() + " bytes");

      MetadataRequest.Builder many = MetadataRequest.newBuilder();
      for (int i = 0; i <= 1000; i++) {
        many.addStreams("stream-" + i);
      }
      Response tooMany = raw.call(Request.newBuilder().setMetadata(many));
      assertEquals(ErrorCode.RESOURCE_LIMIT, tooMany.getError().getCode());
      assertTrue(tooMany.getError().getMessage().contains("at most 1000 distinct streams"),
          tooMany.getError().getMessage());
      assertEquals(0, tooMany.getMetadata().getStreamsCount());

      MetadataRequest.Builder longNames = MetadataRequest.newBuilder();
      for (int i = 0; i < 900; i++) {
        longNames.addStreams(String.format("%0100d", i)); // 900 unknown 100-character names: ~95 KB of answer
      }
      Response tooLarge = raw.call(Request.newBuilder().setMetadata(longNames));
      assertEquals(ErrorCode.RESOURCE_LIMIT, tooLarge.getError().getCode());
      assertTrue(tooLarge.getError().getMessage().contains("would exceed 65536 bytes"),
          tooLarge.getError().getMessage());

      assertEquals(ErrorCode.NONE, produce(raw).getError().getCode(), "the same connection is still served");
    }
  }

  @Test
  void oneConnectionHoldsNoMoreThanItsOwnBudgetAndIsHeldBackByTcpWhileOthersAreServed() throws Exception {
    try (Attacker attacker = new Attacker("127.0.0.2", 30); RawClient good = new RawClient(host, port)) {
      long[] peak = sampleQueuedBytesWhile(Duration.ofSeconds(3), good);
      assertTrue(peak[0] <= PER_CONNECTION, "held " + peak[0] + " bytes of one connection");
      assertTrue(peak[0] >= 2L * PADDING, "the attacker's two frames were held: " + peak[0]);
      assertTrue(attacker.written.get() < 30, "the attacker could write every frame: nothing held it back");
      assertTrue(peak[1] < 1000, "the well-behaved client waited " + peak[1] + " ms");
      assertTrue(attacker.answered.get() >= 2, "the attacker's own fetches are answered as their wait ends");
    }
    TestBrokers.await("the attacker's bytes are given back", Duration.ofSeconds(10),
        () -> listener.queuedRequestBytes() == 0);
  }

  @Test
  void manyConnectionsTogetherHoldNoMoreThanTheBrokersBudgetAndTheWellBehavedClientIsServedDuringAndAfter()
      throws Exception {
    List<Attacker> attackers = new ArrayList<>();
    try (RawClient good = new RawClient(host, port)) {
      for (int a = 2; a <= 4; a++) {
        attackers.add(new Attacker("127.0.0." + a, 30));
      }
      long[] peak = sampleQueuedBytesWhile(Duration.ofSeconds(4), good);
      assertTrue(peak[0] <= BROKER_BUDGET, "the broker held " + peak[0] + " request bytes");
      assertTrue(peak[0] > PER_CONNECTION, "more than one attacker was admitted: " + peak[0]);
      // a small request waits at most for the budget to come back once (the attackers' fetches wait 1.5 s)
      assertTrue(peak[1] < 4000, "the well-behaved client waited " + peak[1] + " ms");
      for (Attacker attacker : attackers) {
        attacker.close();
      }
      TestBrokers.await("the attackers' bytes are given back", Duration.ofSeconds(10),
          () -> listener.queuedRequestBytes() == 0);
      long start = System.nanoTime();
      assertEquals(ErrorCode.NONE, produce(good).getError().getCode());
      assertTrue(System.nanoTime() - start < 1_000_000_000L, "served at once after the attack");
    } finally {
      for (Attacker attacker : attackers) {
        attacker.close();
      }
    }
  }

  @Test
  void connectionsOverThePerAddressOrTheBrokerLimitAreAnsweredResourceLimitAndClosed() throws Exception {
    List<RawClient> open = new ArrayList<>();
    try {
      for (int i = 0; i < 4; i++) {
        open.add(served(new RawClient(host, port, "127.0.0.1")));
      }
      try (RawClient fifth = new RawClient(host, port, "127.0.0.1")) {
        assertRefused(fifth, "127.0.0.1 already has 4 connections to this broker (max-connections-per-address 4)");
      }
      for (int i = 0; i < 3; i++) {
        open.add(served(new RawClient(host, port, "127.0.0.5")));
      }
      open.add(served(new RawClient(host, port, "127.0.0.6")));
      try (RawClient ninth = new RawClient(host, port, "127.0.0.7")) {
        assertRefused(ninth, "the broker already has 8 client connections (max-connections 8)");
      }
      for (RawClient client : open) {
        served(client); // the refusals cost the admitted connections nothing
      }
      open.remove(0).close();
      TestBrokers.await("a closed connection is no longer counted", Duration.ofSeconds(10),
          () -> listener.openConnections() == 7);
      open.add(served(new RawClient(host, port, "127.0.0.7")));
    } finally {
      for (RawClient client : open) {
        client.close();
      }
    }
  }

  @Test
  void aConnectionThatSendsNothingForTheIdleTimeoutIsClosedWhileABusyOneStaysOpen() throws Exception {
    try (RawClient idle = new RawClient(host, port); RawClient busy = new RawClient(host, port)) {
      long start = System.nanoTime();
      AtomicInteger busyCalls = new AtomicInteger();
      AtomicLong busyFailures = new AtomicLong();
      Thread keepBusy = new Thread(() -> {
        while (System.nanoTime() - start < 8_000_000_000L) {
          try {
            served(busy);
            busyCalls.incrementAndGet();
            Thread.sleep(500);
          } catch (Exception | AssertionError e) {
            busyFailures.incrementAndGet();
            return;
          }
        }
      });
      keepBusy.start();
      assertTrue(idle.closedByPeer());
      long closedAfterMs = (System.nanoTime() - start) / 1_000_000;
      assertTrue(closedAfterMs >= 5500 && closedAfterMs < 9000, "idle connection closed after " + closedAfterMs);
      keepBusy.join();
      assertEquals(0, busyFailures.get());
      assertTrue(busyCalls.get() >= 12, "busy calls " + busyCalls.get());
      served(busy);
    }
  }

  /**
   * Samples the broker's held request bytes for {@code duration} while {@code good} keeps producing; returns the
   * peak held bytes and the longest wait of the well-behaved client in ms.
   */
  private long[] sampleQueuedBytesWhile(Duration duration, RawClient good) throws Exception {
    AtomicLong peak = new AtomicLong();
    long end = System.nanoTime() + duration.toNanos();
    Thread sampler = new Thread(() -> {
      while (System.nanoTime() < end) {
        peak.accumulateAndGet(listener.queuedRequestBytes(), Math::max);
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    sampler.start();
    long slowestMs = 0;
    while (System.nanoTime() < end) {
      long start = System.nanoTime();
      assertEquals(ErrorCode.NONE, produce(good).getError().getCode());
      slowestMs = Math.max(slowestMs, (System.nanoTime() - start) / 1_000_000);
      Thread.sleep(100);
    }
    sampler.join();
    return new long[] {peak.get(), slowestMs};
  }

  private static Response produce(RawClient raw) throws IOException {
    return raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder()
        .setStream("s").setShard(0).setRecords(DataPlaneClusterTest.oneRecord("well behaved"))));
  }

  private static RawClient served(RawClient raw) throws IOException {
    Response r = raw.call(Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addStreams("s")));
    assertEquals(ErrorCode.NONE, r.getError().getCode());
    assertEquals(1, r.getMetadata().getStreamsCount());
    return raw;
  }

  private static void assertRefused(RawClient raw, String reason) throws IOException {
    Response r = raw.read();
    assertEquals(ErrorCode.RESOURCE_LIMIT, r.getError().getCode());
    assertEquals("connection refused: " + reason, r.getError().getMessage());
    assertTrue(raw.closedByPeer());
  }

  /**
   * Sends {@code frames} fetch requests of about 900 KiB each (a long-poll fetch of an empty shard padded with an
   * unknown field, so each is held for max-fetch-wait) as fast as the socket takes them, and counts the answers.
   */
  private final class Attacker implements AutoCloseable {
    final AtomicInteger written = new AtomicInteger();
    final AtomicInteger answered = new AtomicInteger();
    private final Socket socket;
    private final Thread writer;
    private final Thread reader;

    Attacker(String from, int frames) throws IOException {
      socket = new Socket(host, port, InetAddress.getByName(from), 0);
      byte[] frame = Request.newBuilder().setCorrelationId(1)
          .setFetch(FetchRequest.newBuilder().setStream("quiet").setShard(0).setMaxWaitMs(60_000))
          .setUnknownFields(UnknownFieldSet.newBuilder().addField(1000, UnknownFieldSet.Field.newBuilder()
              .addLengthDelimited(ByteString.copyFrom(new byte[PADDING])).build()).build())
          .build().toByteArray();
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      writer = new Thread(() -> {
        try {
          for (int i = 0; i < frames; i++) {
            out.writeInt(frame.length);
            out.write(frame);
            written.incrementAndGet();
          }
        } catch (IOException closed) {
          // the test closed the socket
        }
      });
      reader = new Thread(() -> {
        try {
          while (true) {
            byte[] body = new byte[in.readInt()];
            in.readFully(body);
            Response.parseFrom(body);
            answered.incrementAndGet();
          }
        } catch (IOException closed) {
          // the test closed the socket
        }
      });
      writer.start();
      reader.start();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
