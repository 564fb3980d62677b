package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.ClientListener;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.testing.FuzzInput;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import io.felix.protocol.replication.ShardRef;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded fuzzing of one real broker's client and replication ports ({@link FuzzInput}: mutated valid frames,
 * mutated length headers, random bytes), a connection per round: every answer is a well-formed frame, every
 * connection ends within a few seconds of the fuzzer closing its side (no hang), the request budget is given
 * back, and a well-behaved client (and replication peer) is served throughout. Bounded to a few seconds per port;
 * {@code -Dfelix.fuzz.seconds=N} runs longer, {@code -Dfelix.fuzz.seed=S} replays a run.
 */
@Tag("cluster")
@Timeout(value = 30, unit = java.util.concurrent.TimeUnit.MINUTES) // -Dfelix.fuzz.seconds may ask for long runs
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InputFuzzClusterTest {
  private static final ShardId SHARD = new ShardId("s", 0);

  private TestBrokers brokers;
  private ClientListener listener;
  private String host;

  @BeforeAll
  void startBroker(@TempDir Path dir) {
    brokers = new TestBrokers(dir, 1, "felix.client-listener.max-fetch-wait = 1s\n");
    brokers.apply(brokers.table(Map.of("s", 1), List.of(new ShardAssignment(SHARD, List.of(0), List.of(), 0, 1))));
    TestBrokers.await(SHARD + " led and settled", Duration.ofSeconds(20), () -> {
      ReplicaStatus status = brokers.describe(0, SHARD);
      return status.role() == ReplicaRole.LEADER && !status.recovering();
    });
    listener = brokers.plane(0).clientListener();
    host = brokers.endpoint(0).host();
  }

  @AfterAll
  void stopBroker() {
    brokers.close();
  }

  @Test
  void theClientPortSurvivesMutatedFramesAndRandomBytes() throws Exception {
    FuzzInput fuzz = new FuzzInput("the client frame decoder");
    List<byte[]> valid = List.of(
        Request.newBuilder().setCorrelationId(1).setMetadata(MetadataRequest.newBuilder().addStreams("s")).build()
            .toByteArray(),
        Request.newBuilder().setCorrelationId(2).setProduce(ProduceRequest.newBuilder().setStream("s").setShard(0)
            .setRecords(DataPlaneClusterTest.oneRecord("fuzz"))).build().toByteArray(),
        Request.newBuilder().setCorrelationId(3).setFetch(FetchRequest.newBuilder().setStream("s").setShard(0)
            .setMaxWaitMs(200)).build().toByteArray());
    int port = brokers.endpoint(0).clientPort();
    try (RawClient good = new RawClient(host, port)) {
      int rounds = fuzzFor(FuzzInput.duration(8), fuzz, good, round -> oneRound(fuzz, port, null, valid,
          body -> Response.parseFrom(body)));
      System.out.println("client port: " + rounds + " fuzzed connections");
      TestBrokers.await("only the well-behaved connection is left, holding no request bytes", Duration.ofSeconds(10),
          () -> listener.openConnections() == 1 && listener.queuedRequestBytes() == 0);
    }
  }

  @Test
  void theReplicationPortSurvivesMutatedFramesAndRandomBytes() throws Exception {
    FuzzInput fuzz = new FuzzInput("the replication frame decoder");
    ShardRef shard = ShardRef.newBuilder().setStream("s").setShard(0).build();
    byte[] hello = ReplicationFrame.newBuilder().setHello(PeerHello.newBuilder().setBrokerId(7).setToBrokerId(0))
        .build().toByteArray();
    List<byte[]> valid = List.of(hello,
        ReplicationFrame.newBuilder().setSessionRequest(FetchSessionRequest.newBuilder().setSessionId(1)
            .setSequence(0).addEntries(ReplicaFetch.newBuilder().setShard(shard).setLeaderEpoch(1)
            .setFollowerId(7).setFetchOffset(0).setLastFetchedEpoch(-1).setMaxBytes(1 << 16).setFetchId(1))).build()
            .toByteArray(),
        ReplicationFrame.newBuilder().setSessionAnswer(FetchSessionAnswer.newBuilder().setSessionId(1).setSequence(0)
            .addResults(ReplicaFetchResult.newBuilder().setShard(shard).setLeaderEpoch(1).setFetchId(1)
            .setBatches(DataPlaneClusterTest.oneRecord("fuzz")))).build().toByteArray());
    int port = brokers.endpoint(0).replicationPort();
    try (RawClient good = new RawClient(host, brokers.endpoint(0).clientPort())) {
      int rounds = fuzzFor(FuzzInput.duration(6), fuzz, good, round -> oneRound(fuzz, port, hello, valid,
          body -> ReplicationFrame.parseFrom(body)));
      System.out.println("replication port: " + rounds + " fuzzed connections");
      try (RawReplicationPeer peer = new RawReplicationPeer(host, port, 8)) {
        assertEquals(SHARD.stream(), peer.fetch(SHARD, 1, 99).getShard().getStream(), "a clean peer is served");
      }
    }
  }

  /**
   * A peer that sends its hello and the first request of its fetch session in one write is answered every time: the
   * acceptor registers the connection as the peer's link before it routes the request, so the answer is never sent
   * to no link (and lost).
   */
  @Test
  void aFetchSessionRequestArrivingWithTheHelloIsAnswered() throws Exception {
    ShardRef shard = ShardRef.newBuilder().setStream("s").setShard(0).build();
    for (int i = 0; i < 300; i++) {
      ByteArrayOutputStream sent = new ByteArrayOutputStream();
      DataOutputStream frames = new DataOutputStream(sent);
      for (ReplicationFrame frame : List.of(
          ReplicationFrame.newBuilder().setHello(PeerHello.newBuilder().setBrokerId(9)).build(),
          ReplicationFrame.newBuilder().setSessionRequest(FetchSessionRequest.newBuilder().setSessionId(1000 + i)
              .setSequence(0).addEntries(ReplicaFetch.newBuilder().setShard(shard).setLeaderEpoch(1)
              .setFollowerId(9).setFetchOffset(0).setLastFetchedEpoch(-1).setFetchId(i))).build())) {
        frames.writeInt(frame.getSerializedSize());
        frames.write(frame.toByteArray());
      }
      try (Socket socket = new Socket(host, brokers.endpoint(0).replicationPort())) {
        socket.setSoTimeout(5_000);
        socket.getOutputStream().write(sent.toByteArray());
        DataInputStream in = new DataInputStream(socket.getInputStream());
        ReplicationFrame answer;
        do {
          byte[] body = new byte[in.readInt()];
          in.readFully(body);
          answer = ReplicationFrame.parseFrom(body);
        } while (!answer.hasSessionAnswer());
        assertEquals(1000 + i, answer.getSessionAnswer().getSessionId(), "connection " + i);
        assertEquals(i, answer.getSessionAnswer().getResults(0).getFetchId(), "connection " + i);
      }
    }
  }

  /** A connection's second hello naming another broker closes it: its link stays registered under one id only. */
  @Test
  void aPeerCannotChangeItsIdOnAConnection() throws Exception {
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    DataOutputStream frames = new DataOutputStream(sent);
    for (int id : new int[] {7, 5}) {
      byte[] hello = ReplicationFrame.newBuilder().setHello(PeerHello.newBuilder().setBrokerId(id)).build()
          .toByteArray();
      frames.writeInt(hello.length);
      frames.write(hello);
    }
    try (Socket socket = new Socket(host, brokers.endpoint(0).replicationPort())) {
      socket.setSoTimeout(5_000);
      socket.getOutputStream().write(sent.toByteArray());
      DataInputStream in = new DataInputStream(socket.getInputStream());
      List<Integer> answeredTo = new java.util.ArrayList<>();
      while (true) {
        int length;
        try {
          length = in.readInt();
        } catch (EOFException | SocketException closed) {
          break; // the broker closed it (the socket is still open on this side: a timeout means it did not)
        }
        byte[] body = new byte[length];
        in.readFully(body);
        answeredTo.add(ReplicationFrame.parseFrom(body).getHello().getToBrokerId());
      }
      assertFalse(answeredTo.contains(5), "the second identity is not taken: " + answeredTo);
    }
  }

  private interface Round {
    void run(int round) throws Exception;
  }

  private interface Parser {
    Object parse(byte[] body) throws IOException;
  }

  /** Runs rounds until {@code duration} is over; every 20 rounds the well-behaved client must be served at once. */
  private static int fuzzFor(Duration duration, FuzzInput fuzz, RawClient good, Round round) throws Exception {
    long end = System.nanoTime() + duration.toNanos();
    int rounds = 0;
    while (System.nanoTime() < end) {
      round.run(rounds++);
      if (rounds % 20 == 0) {
        long start = System.nanoTime();
        Response r = good.call(Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addStreams("s")));
        assertEquals(ErrorCode.NONE, r.getError().getCode(), "seed " + fuzz.seed());
        assertTrue(System.nanoTime() - start < 2_000_000_000L, "the well-behaved client waited, seed " + fuzz.seed());
      }
    }
    return rounds;
  }

  /**
   * One fuzzed connection: now and then a valid {@code hello} (replication), then a few frames (a valid one mutated
   * under a true or a mutated length header, or random bytes), then the fuzzer closes its side; every frame the
   * broker sends back must parse, and the broker must close the connection within 5 s (max-fetch-wait is 1 s).
   */
  private void oneRound(FuzzInput fuzz, int port, byte[] hello, List<byte[]> valid, Parser parser)
      throws Exception {
    ByteArrayOutputStream sent = new ByteArrayOutputStream();
    DataOutputStream frames = new DataOutputStream(sent);
    if (hello != null && fuzz.random().nextBoolean()) { // a valid hello first, so the rest reaches the router
      frames.writeInt(hello.length);
      frames.write(hello);
    }
    int count = 1 + fuzz.random().nextInt(4);
    for (int i = 0; i < count; i++) {
      byte[] body = fuzz.mutate(valid.get(fuzz.random().nextInt(valid.size())));
      switch (fuzz.random().nextInt(6)) {
        case 0 -> frames.write(fuzz.bytes(fuzz.random().nextInt(64)));
        case 1 -> frames.writeInt(fuzz.random().nextInt()); // any length header, then the body
        default -> frames.writeInt(body.length);
      }
      frames.write(body);
    }
    try (Socket socket = new Socket(host, port)) {
      socket.setSoTimeout(5_000);
      socket.getOutputStream().write(sent.toByteArray());
      socket.shutdownOutput();
      DataInputStream in = new DataInputStream(socket.getInputStream());
      while (true) {
        int length;
        try {
          length = in.readInt();
        } catch (EOFException | SocketException closed) {
          return;
        } catch (SocketTimeoutException hang) {
          fail("the broker kept a fuzzed connection open 5 s after the fuzzer closed its side; seed " + fuzz.seed());
          return;
        }
        assertTrue(length >= 0 && length < 16 << 20, "answer frame length " + length + ", seed " + fuzz.seed());
        byte[] body = new byte[length];
        in.readFully(body);
        parser.parse(body);
      }
    } catch (SocketException reset) {
      // the broker closed the connection while the fuzzer still wrote: an accepted outcome
    }
  }
}
