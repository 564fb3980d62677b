package io.felix.loadgen.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.testing.MachineRequirements;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LoopbackPartition} with real iptables rules and real sockets: three "brokers", each a pair of listening
 * sockets (cluster and replication port) and a dialer running under the broker's group id, as bin/felix runs
 * brokers. A cut between brokers 0 and 2 stops exactly their connections to each other's ports, both ways, and
 * nothing of broker 1's; healing and closing restore everything and leave no rule behind. Needs root and iptables
 * ({@link MachineRequirements}).
 */
class LoopbackPartitionTest {
  private final List<ServerSocket> listeners = new ArrayList<>();
  private LoopbackPartition.BrokerPorts ports;

  @BeforeEach
  void listen() throws IOException {
    MachineRequirements.require("LoopbackPartitionTest (iptables rules on 127.0.0.1, as root)",
        LoopbackPartition.unavailableReason());
    for (int i = 0; i < 6; i++) {
      ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      listeners.add(s);
      Thread t = new Thread(() -> {
        try {
          while (true) {
            Socket c = s.accept();
            c.getOutputStream().write('k');
            c.getOutputStream().flush();
          }
        } catch (IOException closed) {
          // the test ended
        }
      });
      t.setDaemon(true);
      t.start();
    }
    ports = new LoopbackPartition.BrokerPorts() {
      public int brokers() {
        return 3;
      }

      public int clusterPort(int broker) {
        return listeners.get(broker).getLocalPort();
      }

      public int replicationPort(int broker) {
        return listeners.get(3 + broker).getLocalPort();
      }
    };
  }

  @AfterEach
  void close() throws IOException {
    for (ServerSocket s : listeners) {
      s.close();
    }
  }

  @Test
  void aCutStopsExactlyTheConnectionsBetweenItsTwoSidesAndHealingRestoresThem() throws Exception {
    try (LoopbackPartition partition = new LoopbackPartition(ports)) {
      partition.cut(Set.of(0), Set.of(2), EnumSet.allOf(LoopbackPartition.Port.class));
      assertFalse(reaches(0, ports.clusterPort(2)), "0 -> 2's cluster port");
      assertFalse(reaches(0, ports.replicationPort(2)), "0 -> 2's replication port");
      assertFalse(reaches(2, ports.clusterPort(0)), "2 -> 0's cluster port");
      assertTrue(reaches(1, ports.clusterPort(0)), "1 -> 0");
      assertTrue(reaches(1, ports.replicationPort(2)), "1 -> 2");
      assertTrue(reaches(0, ports.clusterPort(1)), "0 -> 1");
      assertTrue(reaches(2, ports.replicationPort(1)), "2 -> 1");
      assertEquals(2, partition.cuts().size(), partition.cuts().toString());

      partition.heal();
      assertTrue(reaches(0, ports.clusterPort(2)), "0 -> 2 after the heal");
      assertTrue(reaches(2, ports.replicationPort(0)), "2 -> 0 after the heal");

      partition.cut(Set.of(1), Set.of(0, 2), EnumSet.of(LoopbackPartition.Port.REPLICATION));
      assertFalse(reaches(1, ports.replicationPort(0)), "1 -> 0's replication port");
      assertFalse(reaches(0, ports.replicationPort(1)), "0 -> 1's replication port");
      assertTrue(reaches(1, ports.clusterPort(0)), "1 -> 0's cluster port is not cut");
      assertTrue(reaches(0, ports.replicationPort(2)), "0 -> 2");
    }
    assertFalse(iptablesRules().contains("FELIX-PART-" + ProcessHandle.current().pid()), iptablesRules());
  }

  /** Whether a process running as broker {@code from} connects to the port and reads the listener's byte. */
  private static boolean reaches(int from, int port) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("setpriv", "--regid=" + (LoopbackPartition.GID_BASE + from), "--clear-groups",
        "timeout", "1", "bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/" + port + " && head -c 1 <&3")
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(10, TimeUnit.SECONDS));
    return p.exitValue() == 0 && out.equals("k");
  }

  private static String iptablesRules() throws IOException, InterruptedException {
    Process p = new ProcessBuilder("iptables", "-w", "5", "-S").redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor(10, TimeUnit.SECONDS);
    return out;
  }
}
