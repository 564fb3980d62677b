package io.felix.broker.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.node.NodeConfig;
import io.felix.broker.tls.TlsSettings;
import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicationFrame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * felix.replication.cluster-secret: brokers that share the secret link up after the HMAC challenge; a process that
 * can reach the replication port but does not know the secret (a forged proof, no proof, a dialler with another
 * secret) is refused and delivers nothing, and the broker goes on serving its real peer.
 */
class ClusterSecretTest {
  private static final ActorTestKit kit =
      ActorTestKit.create(NodeConfig.withOverrides(Map.of("felix.cluster.port", 0)));
  private static final ReplicationSettings SETTINGS = ReplicationSettings.from(kit.system().settings().config());

  /** Frames broker 1 delivered, as "from broker:fetch id". */
  private final List<String> delivered = new CopyOnWriteArrayList<>();

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void aRoguePeerHelloIsRefusedAndTheBrokerServesItsRealPeer() throws Exception {
    try (TcpReplicationTransport broker1 = start(1, "s3cret");
        TcpReplicationTransport broker0 = start(0, "s3cret")) {
      broker0.updatePeers(Map.of(1, endpoint(1, broker1.boundPort())));
      await("broker 0's link to broker 1 authenticated", () -> broker0.send(1, fetch(1)));
      await("broker 1 got broker 0's fetch", () -> delivered.contains("0:1"));

      // A rogue that can reach the port: it reads the challenge and claims broker 2 with a forged proof.
      assertRefused(broker1.boundPort(), PeerHello.newBuilder().setBrokerId(2).setToBrokerId(1)
          .setChallenge(ByteString.copyFrom(new byte[32])).setProof(ByteString.copyFrom(new byte[32])), 66);
      // One that sends a plain hello, as a broker without the secret would, then a fetch.
      assertRefused(broker1.boundPort(), PeerHello.newBuilder().setBrokerId(2).setToBrokerId(1), 67);

      delivered.remove("0:1");
      assertTrue(broker0.send(1, fetch(2)), "broker 0's link stays up");
      await("broker 1 still serves broker 0", () -> delivered.contains("0:2"));
      assertEquals(List.of("0:2"), delivered.stream().filter(d -> !d.equals("0:1")).toList(),
          "nothing from the rogues was delivered");
    }
  }

  @Test
  void aDiallerWithAnotherSecretNeverGetsALink() throws Exception {
    try (TcpReplicationTransport broker1 = start(1, "s3cret");
        TcpReplicationTransport impostor = start(0, "guessed")) {
      impostor.updatePeers(Map.of(1, endpoint(1, broker1.boundPort())));
      Thread.sleep(1500); // several dial attempts
      assertFalse(impostor.send(1, fetch(3)), "no link without the secret");
      assertTrue(delivered.isEmpty(), "broker 1 delivered nothing: " + delivered);
    }
  }

  private TcpReplicationTransport start(int id, String secret) {
    return TcpReplicationTransport.start(kit.system(), id, SETTINGS, new PeerAuthentication(TlsSettings.off(), secret),
        (from, frame) -> {
          if (id == 1) {
            delivered.add(from + ":" + frame.getSessionRequest().getSessionId());
          }
        }, "127.0.0.1", 0);
  }

  private static BrokerEndpoint endpoint(int id, int replicationPort) {
    return new BrokerEndpoint(id, "127.0.0.1", 0, replicationPort, 0, "127.0.0.1");
  }

  /** Reads the acceptor's challenge, sends {@code hello} and a fetch: the broker must hang up. */
  private static void assertRefused(int port, PeerHello.Builder hello, long fetchId) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      DataInputStream in = new DataInputStream(socket.getInputStream());
      byte[] challenge = new byte[in.readInt()];
      in.readFully(challenge);
      assertEquals(32, ReplicationFrame.parseFrom(challenge).getHello().getChallenge().size(),
          "the acceptor opens with a challenge");
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      write(out, ReplicationFrame.newBuilder().setHello(hello).build());
      write(out, fetch(fetchId));
      boolean closed;
      try {
        closed = in.read() == -1;
      } catch (IOException e) {
        closed = true; // reset by the broker
      }
      assertTrue(closed, "the broker hangs up on hello " + hello.build());
    }
  }

  private static ReplicationFrame fetch(long fetchId) {
    return ReplicationFrame.newBuilder().setSessionRequest(FetchSessionRequest.newBuilder().setSessionId(fetchId))
        .build();
  }

  private static void write(DataOutputStream out, ReplicationFrame frame) throws IOException {
    byte[] bytes = frame.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for: " + what);
      Thread.sleep(20);
    }
  }
}
