package io.felix.loadgen.local;

import io.felix.launcher.LocalCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * Network partitions between the broker processes of a {@link LocalCluster}, made with iptables rules on the
 * loopback interface, for the chaos suite's partition faults and the partition tests.
 *
 * <p>What is cut. Between two brokers: both directions of every TCP connection between one broker's sockets and
 * the other's Pekko cluster (Artery) port or replication port, so neither cluster gossip, heartbeats and control
 * messages nor replication fetches and forwards pass. Client ports, admin ports and the H2 journal's AUTO_SERVER
 * port are never touched: clients still reach every broker, which is what makes a partition hard for them.
 *
 * <p>How. Every broker listens on 127.0.0.1 and dials from ephemeral ports, so a rule cannot tell brokers apart by
 * the source port of an outgoing connection. The launcher ({@code FELIX_BROKER_GID_BASE}) therefore runs broker N with the group id
 * {@link #GID_BASE} + N (uid unchanged; {@code FELIX_BROKER_GID_BASE}), and one chain of this object's own,
 * jumped to from OUTPUT for {@code -o lo -s 127.0.0.1 -d 127.0.0.1} only, marks a connection when broker A's socket
 * sends on it to one of broker B's ports ({@code -m owner --gid-owner}, exactly the test's ports with
 * {@code -m multiport --dports}, {@code CONNMARK}) and drops every packet of a marked connection, both directions.
 * Healing flushes the chain; {@link #close} removes it
 * and its jump, as does a JVM shutdown hook, so a failed or interrupted test leaves no rule behind.
 */
public final class LoopbackPartition implements AutoCloseable {
  /** Broker N of a local cluster started with {@link #launcherEnvironment} runs with this group id plus N. */
  public static final int GID_BASE = 61000;
  private static final String LOOPBACK = "127.0.0.1";
  private static final String MARK_MASK = "0xffffff";
  private static final int GENERATIONS = 0x10000;
  private static final AtomicInteger CHAINS = new AtomicInteger();

  /** The brokers' ports (a {@link LocalCluster}'s). */
  public interface BrokerPorts {
    int brokers();

    int clusterPort(int broker);

    int replicationPort(int broker);
  }

  /** The ports of a local cluster's brokers. */
  public static BrokerPorts portsOf(LocalCluster cluster) {
    return new BrokerPorts() {
      @Override
      public int brokers() {
        return cluster.brokers();
      }

      @Override
      public int clusterPort(int broker) {
        return cluster.clusterPort(broker);
      }

      @Override
      public int replicationPort(int broker) {
        return cluster.replicationPort(broker);
      }
    };
  }

  private final BrokerPorts cluster;
  private final String chain;
  private final Thread cleanup;
  private final Set<String> cut = new TreeSet<>();
  private boolean installed;
  /** Bits 16-23 of this object's marks: its own, so two partitions (two test JVMs) never drop each other's. */
  private final int markBase;
  private int generation;
  private boolean dropping;

  /** @param cluster brokers each running with group id {@link #GID_BASE} + its id ({@link #launcherEnvironment}) */
  public LoopbackPartition(BrokerPorts cluster) {
    this.cluster = cluster;
    int number = CHAINS.incrementAndGet();
    this.chain = "FELIX-PART-" + ProcessHandle.current().pid() + "-" + number;
    this.markBase = (1 + (int) Math.floorMod(ProcessHandle.current().pid() * 31 + number, 255L)) << 16;
    this.cleanup = new Thread(this::removeQuietly, "loopback-partition-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  /** What the launcher needs to run each broker under its own group id. */
  public static java.util.Map<String, String> launcherEnvironment() {
    return java.util.Map.of("FELIX_BROKER_GID_BASE", Integer.toString(GID_BASE));
  }

  /**
   * Null when partitions can be made here (iptables runs, and may add a chain with the owner, conntrack, connmark
   * and multiport matches this class uses); otherwise why not.
   */
  public static String unavailableReason() {
    String probe = "FELIX-PROBE-" + ProcessHandle.current().pid() + "-" + CHAINS.incrementAndGet();
    try {
      iptables("-N", probe);
      try {
        iptables("-A", probe, "-p", "tcp", "-m", "owner", "--gid-owner", Integer.toString(GID_BASE),
            "-m", "multiport", "--dports", "1,2", "-j", "CONNMARK", "--set-mark", "0xfe0000/" + MARK_MASK);
        iptables("-A", probe, "-m", "connmark", "--mark", "0xfe0000/" + MARK_MASK, "-j", "DROP");
      } finally {
        iptables("-F", probe);
        iptables("-X", probe);
      }
      return null;
    } catch (IOException e) {
      return e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while probing iptables";
    }
  }

  /**
   * Cuts every broker in {@code side} from every broker in {@code others}, on the given ports of theirs (a broker's
   * cluster port, its replication port, or both); cuts already made stay.
   */
  public synchronized void cut(Set<Integer> side, Set<Integer> others, Set<Port> ports)
      throws IOException, InterruptedException {
    install();
    for (int a : side) {
      for (int b : others) {
        drop(a, b, ports);
        drop(b, a, ports);
      }
    }
  }

  /** Removes every cut; the chain stays installed (empty but for the marks) until {@link #close}. */
  public synchronized void heal() throws IOException, InterruptedException {
    if (installed) {
      iptables("-F", chain);
      cut.clear();
      dropping = false;
      generation = (generation + 1) % GENERATIONS;
    }
  }

  /** The cuts in place, one line each, for logs. */
  public synchronized List<String> cuts() {
    return List.copyOf(cut);
  }

  @Override
  public synchronized void close() throws IOException, InterruptedException {
    try {
      remove();
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running or ran
      }
    }
  }

  /** The broker ports a cut covers. */
  public enum Port {
    /** Pekko Artery: membership, heartbeats, the singleton's commands and tables. */
    CLUSTER,
    /** The broker-to-broker replication connection: fetches (acks), records, forwarded batches. */
    REPLICATION
  }

  private void install() throws IOException, InterruptedException {
    if (installed) {
      return;
    }
    iptables("-N", chain);
    installed = true;
    iptables("-I", "OUTPUT", "1", "-o", "lo", "-s", LOOPBACK, "-d", LOOPBACK, "-j", chain);
  }

  /**
   * Marks the connections broker {@code from} opened to {@code to}'s ports with this cut's generation and drops
   * every packet of a marked connection, both directions. A packet that broker {@code from}'s socket sends to one
   * of {@code to}'s listening ports can only belong to a connection {@code from} dialed there, and the mark sits on
   * the connection, so {@code to}'s answers on it are dropped too. (Conntrack's own idea of the original direction is
   * not used: for a connection older than the rules' conntrack hooks it is whichever side spoke first.)
   */
  private void drop(int from, int to, Set<Port> ports) throws IOException, InterruptedException {
    List<String> numbers = new ArrayList<>();
    for (Port p : ports) {
      numbers.add(Integer.toString(p == Port.CLUSTER ? cluster.clusterPort(to) : cluster.replicationPort(to)));
    }
    String line = "broker " + from + " -> broker " + to + " ports " + numbers;
    if (cut.add(line)) {
      // Marking rules go first, so the packet that marks a connection is dropped by the rule after them.
      iptables("-I", chain, "1", "-p", "tcp", "-m", "owner", "--gid-owner", Integer.toString(GID_BASE + from),
          "-m", "multiport", "--dports", String.join(",", numbers), "-j", "CONNMARK", "--set-mark", mark());
      if (!dropping) {
        iptables("-A", chain, "-m", "connmark", "--mark", mark(), "-j", "DROP");
        dropping = true;
      }
    }
  }

  /** This cut's mark: a new generation after every heal, so connections cut before are not cut again. */
  private String mark() {
    return "0x" + Integer.toHexString(markBase + generation) + "/" + MARK_MASK;
  }

  private void remove() throws IOException, InterruptedException {
    if (!installed) {
      return;
    }
    installed = false;
    dropping = false;
    cut.clear();
    iptables("-D", "OUTPUT", "-o", "lo", "-s", LOOPBACK, "-d", LOOPBACK, "-j", chain);
    iptables("-F", chain);
    iptables("-X", chain);
  }

  private void removeQuietly() {
    try {
      synchronized (this) {
        remove();
      }
    } catch (IOException | InterruptedException e) {
      System.err.println("loopback partition: removing iptables chain " + chain + " failed: " + e.getMessage());
    }
  }

  private static void iptables(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("iptables", "-w", "5"));
    command.addAll(List.of(args));
    Process p;
    try {
      p = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException notInstalled) {
      throw new IOException("iptables cannot be run: " + notInstalled.getMessage(), notInstalled);
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed: " + out);
    }
  }

  @Override
  public String toString() {
    return cut.isEmpty() ? "no cut" : cut.stream().collect(Collectors.joining("; "));
  }
}
