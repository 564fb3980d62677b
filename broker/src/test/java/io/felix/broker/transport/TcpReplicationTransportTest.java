package io.felix.broker.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.node.NodeConfig;
import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicationFrame;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * The accepting side of the replication transport. A broker restarted in place can get new ports while its old
 * replication port goes to another broker (or to the dialler itself); a dialler that still holds the old address
 * must be refused, or it replicates to the wrong broker, or to itself, for as long as the connection lives.
 */
class TcpReplicationTransportTest {
  private static final ActorTestKit kit =
      ActorTestKit.create(NodeConfig.withOverrides(Map.of("felix.cluster.port", 0)));
  private static final ReplicationSettings SETTINGS = ReplicationSettings.from(kit.system().settings().config());

  /** Frames the transport delivered, as "from broker: fetch id". */
  private final List<String> delivered = new CopyOnWriteArrayList<>();

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void aConnectionMeantForAnotherBrokerOrFromItselfIsClosedAndDeliversNothing() throws Exception {
    try (TcpReplicationTransport broker1 = TcpReplicationTransport.start(kit.system(), 1, SETTINGS,
        (from, frame) -> delivered.add(from + ":" + frame.getSessionRequest().getSessionId()), "127.0.0.1", 0)) {
      assertClosedAfter(broker1.boundPort(), hello(0).setToBrokerId(2), 11);
      assertClosedAfter(broker1.boundPort(), hello(1).setToBrokerId(1), 12);
      assertClosedAfter(broker1.boundPort(), hello(1), 13);

      try (Socket socket = new Socket("127.0.0.1", broker1.boundPort())) {
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        write(out, ReplicationFrame.newBuilder().setHello(hello(0).setToBrokerId(1)).build());
        write(out, fetch(14));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (delivered.isEmpty() && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
      }
      assertEquals(List.of("0:14"), delivered, "only the connection meant for broker 1 delivers its frames");
    }
  }

  private static void assertClosedAfter(int port, PeerHello.Builder hello, long fetchId) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      DataOutputStream out = new DataOutputStream(socket.getOutputStream());
      boolean closed;
      try {
        write(out, ReplicationFrame.newBuilder().setHello(hello).build());
        // The broker may close on the hello before the fetch is written: then the write is reset.
        write(out, fetch(fetchId));
        closed = new DataInputStream(socket.getInputStream()).read() == -1;
      } catch (EOFException | java.net.SocketException e) {
        closed = true; // reset by the peer
      }
      assertTrue(closed, "the connection with hello " + hello.build() + " is closed by the broker");
    }
  }

  private static PeerHello.Builder hello(int from) {
    return PeerHello.newBuilder().setBrokerId(from);
  }

  private static ReplicationFrame fetch(long fetchId) {
    return ReplicationFrame.newBuilder().setSessionRequest(FetchSessionRequest.newBuilder().setSessionId(fetchId))
        .build();
  }

  private static void write(DataOutputStream out, ReplicationFrame frame) throws Exception {
    byte[] bytes = frame.toByteArray();
    out.writeInt(bytes.length);
    out.write(bytes);
    out.flush();
  }
}
