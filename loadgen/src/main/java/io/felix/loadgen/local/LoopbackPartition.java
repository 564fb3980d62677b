package io.felix.loadgen.local;

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
 * the source port of an outgoing connection. {@code bin/felix local} therefore runs broker N with the group id
 * {@link #GID_BASE} + N (uid unchanged; {@code FELIX_BROKER_GID_BASE}), and one chain of this object's own,
 * jumped to from OUTPUT for {@code -o lo -s 127.0.0.1 -d 127.0.0.1} only, marks each connection with the broker
 * whose socket opened it ({@code -m owner --gid-owner}, {@code CONNMARK} on the original direction) and drops the
 * packets, both directions, of a connection opened by broker A that has one of broker B's two ports at either end
 * (exactly the test's ports, {@code -m multiport --ports}). Healing flushes the chain; {@link #close} removes it
 * and its jump, as does a JVM shutdown hook, so a failed or interrupted test leaves no rule behind.
 */
public final class LoopbackPartition implements AutoCloseable {
  /** Broker N of a local cluster started with {@link #launcherEnvironment} runs with this group id plus N. */
  public static final int GID_BASE = 61000;
  private static final String LOOPBACK = "127.0.0.1";
  private static final int MARK_BASE = 0xfe100;
  private static final String MARK_MASK = "0xfffff";
  private static final AtomicInteger CHAINS = new AtomicInteger();

  /** The brokers' ports (a {@link LocalCluster}'s). */
  public interface BrokerPorts {
    int brokers();

    int clusterPort(int broker);

    int replicationPort(int broker);
  }

  private final BrokerPorts cluster;
  private final String chain;
  private final Thread cleanup;
  private final Set<String> cut = new TreeSet<>();
  private boolean installed;

  /** @param cluster brokers each running with group id {@link #GID_BASE} + its id ({@link #launcherEnvironment}) */
  public LoopbackPartition(BrokerPorts cluster) {
    this.cluster = cluster;
    this.chain = "FELIX-PART-" + ProcessHandle.current().pid() + "-" + CHAINS.incrementAndGet();
    this.cleanup = new Thread(this::removeQuietly, "loopback-partition-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
  }

  /** What {@code bin/felix local} needs to run each broker under its own group id. */
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
        iptables("-A", probe, "-o", "lo", "-m", "owner", "--gid-owner", Integer.toString(GID_BASE),
            "-m", "conntrack", "--ctdir", "ORIGINAL", "-j", "CONNMARK", "--set-xmark", mark(0));
        iptables("-A", probe, "-o", "lo", "-p", "tcp", "-m", "connmark", "--mark", mark(0),
            "-m", "multiport", "--ports", "1,2", "-j", "DROP");
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
      addMarks();
      cut.clear();
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
    addMarks();
    iptables("-I", "OUTPUT", "1", "-o", "lo", "-s", LOOPBACK, "-d", LOOPBACK, "-j", chain);
  }

  /** Marks each connection with the broker whose socket opened it (its first packet of the original direction). */
  private void addMarks() throws IOException, InterruptedException {
    for (int b = 0; b < cluster.brokers(); b++) {
      iptables("-A", chain, "-m", "owner", "--gid-owner", Integer.toString(GID_BASE + b),
          "-m", "conntrack", "--ctdir", "ORIGINAL", "-j", "CONNMARK", "--set-xmark", mark(b));
    }
  }

  /** Drops both directions of connections broker {@code from} opened to {@code to}'s ports. */
  private void drop(int from, int to, Set<Port> ports) throws IOException, InterruptedException {
    List<String> numbers = new ArrayList<>();
    for (Port p : ports) {
      numbers.add(Integer.toString(p == Port.CLUSTER ? cluster.clusterPort(to) : cluster.replicationPort(to)));
    }
    String line = "broker " + from + " -> broker " + to + " ports " + numbers;
    if (cut.add(line)) {
      iptables("-A", chain, "-p", "tcp", "-m", "connmark", "--mark", mark(from),
          "-m", "multiport", "--ports", String.join(",", numbers), "-j", "DROP");
    }
  }

  private static String mark(int broker) {
    return "0x" + Integer.toHexString(MARK_BASE + broker) + "/" + MARK_MASK;
  }

  private void remove() throws IOException, InterruptedException {
    if (!installed) {
      return;
    }
    installed = false;
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
