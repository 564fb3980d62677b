package io.felix.loadgen.chaos;

import io.felix.launcher.LocalCluster;
import io.felix.loadgen.local.LoopbackPartition;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Injects one fault of a {@link FaultKind} into the local cluster. {@link #inject} returns once the fault's
 * action is over (for a kill of every broker: once every process answers GET /health again), which is when the
 * round starts timing how long the shards take to be writable.
 */
final class Nemesis implements AutoCloseable {
  /** Longer than the failure detector and the split brain resolver's stable-after (felix.cluster). */
  static final Duration PAUSE = Duration.ofSeconds(15);
  private static final Duration RESTART_TIMEOUT = Duration.ofSeconds(180);
  /** How long a broker's disk stays full once one of its replicas has failed. */
  static final Duration DISK_FULL_HOLD = Duration.ofSeconds(10);
  /** Room past the largest segment when the disk is filled: a moment of the rounds' load. */
  private static final long DISK_FULL_ROOM_BYTES = 256 * 1024;

  private final ChaosCluster cluster;
  private final LocalCluster local;
  private final Random random;
  /** How long a partition stays cut (at least until every shard is writable again; {@code --partition-hold}). */
  private final Duration partitionHold;
  private LoopbackPartition partition;
  private long cutAtNanos;

  Nemesis(ChaosCluster cluster, Random random, Duration partitionHold) {
    this.cluster = cluster;
    this.partitionHold = partitionHold;
    this.local = cluster.local();
    this.random = random;
  }

  /** Injects the fault; returns what was done, for the round's line. */
  String inject(FaultKind kind) throws IOException, InterruptedException {
    return switch (kind) {
      case KILL_LEADER -> kill(cluster.mostLeaders(), "leading the most shards");
      case KILL_SINGLETON_HOST -> kill(cluster.singletonHost(), "hosting the singleton");
      case PAUSE -> pause(randomBroker());
      case KILL_ALL -> killAll();
      case RESTART_ROLLING -> restartRolling();
      case RESTART_ALL -> restartAll();
      case REPLACE_DISK -> replaceDisk(randomBroker());
      case DISK_FULL -> diskFull();
      case MOVE_LEADER -> moveLeader();
      case DRAIN -> drain(randomBroker());
      case PARTITION_SINGLETON -> cutFromSingletonHost();
      case PARTITION_REPLICATION -> cutFromFollowers();
      case PARTITION_ISOLATE -> isolate();
    };
  }

  /**
   * Ends a fault that lasts beyond {@link #inject} (a partition is timed from its cut, so inject returns once it
   * is made): holds it until the partition hold after the cut, then heals it. Returns what was done ("" for
   * the other kinds).
   */
  String release(FaultKind kind) throws IOException, InterruptedException {
    if (!kind.partition() || partition == null) {
      return "";
    }
    long left = cutAtNanos + partitionHold.toNanos() - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000);
    }
    partition.heal();
    return "; healed " + (System.nanoTime() - cutAtNanos) / 1_000_000 + " ms after the cut";
  }

  /** The leader (most shards) that does not host the singleton, cut from the singleton's host only. */
  private String cutFromSingletonHost() throws IOException, InterruptedException {
    int singleton = cluster.singletonHost();
    int victim = cluster.mostLeaders(b -> b != singleton);
    cut(Set.of(victim), Set.of(singleton), EnumSet.allOf(LoopbackPartition.Port.class));
    return "broker " + victim + " (a leader) cut off from broker " + singleton + " (the singleton's host): "
        + "cluster and replication ports";
  }

  /** The leader (most shards) that does not host the singleton, cut from its followers' replication ports. */
  private String cutFromFollowers() throws IOException, InterruptedException {
    int singleton = cluster.singletonHost();
    int victim = cluster.mostLeaders(b -> b != singleton);
    cut(Set.of(victim), others(victim), EnumSet.of(LoopbackPartition.Port.REPLICATION));
    return "broker " + victim + " (a leader) cut off from the replication ports of brokers " + others(victim)
        + " (its followers); cluster traffic to the singleton's host " + singleton + " passes";
  }

  /** The leader (most shards) that does not host the singleton, cut from every other broker. */
  private String isolate() throws IOException, InterruptedException {
    int singleton = cluster.singletonHost();
    int victim = cluster.mostLeaders(b -> b != singleton);
    cut(Set.of(victim), others(victim), EnumSet.allOf(LoopbackPartition.Port.class));
    return "broker " + victim + " (a leader) cut off from brokers " + others(victim)
        + ": cluster and replication ports; clients still reach it";
  }

  private void cut(Set<Integer> side, Set<Integer> others, Set<LoopbackPartition.Port> ports)
      throws IOException, InterruptedException {
    if (partition == null) {
      partition = new LoopbackPartition(LoopbackPartition.portsOf(local));
    }
    partition.cut(side, others, ports);
    cutAtNanos = System.nanoTime();
  }

  private Set<Integer> others(int broker) {
    Set<Integer> out = new TreeSet<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      if (b != broker) {
        out.add(b);
      }
    }
    return out;
  }

  /** Removes the partition's iptables chain, if one was made. */
  @Override
  public void close() throws IOException, InterruptedException {
    if (partition != null) {
      partition.close();
    }
  }

  private String kill(int broker, String why) throws IOException, InterruptedException {
    long pid = local.pid(broker);
    local.signal(broker, "KILL");
    return "broker " + broker + " (" + why + ", pid " + pid + ") SIGKILLed";
  }

  private String pause(int broker) throws IOException, InterruptedException {
    local.signal(broker, "STOP");
    try {
      Thread.sleep(PAUSE.toMillis());
    } finally {
      local.signal(broker, "CONT");
    }
    return "broker " + broker + " SIGSTOPped for " + PAUSE.toSeconds() + " s, then SIGCONT";
  }

  private String killAll() throws IOException, InterruptedException {
    for (int b = 0; b < cluster.brokers(); b++) {
      local.signal(b, "KILL");
    }
    // The supervisors start them again after their backoff; until the old processes are gone, /health could
    // still answer from one of them.
    Thread.sleep(1_000);
    cluster.awaitHealthy(RESTART_TIMEOUT);
    return "every broker SIGKILLed, restarted by its supervisor";
  }

  private String restartRolling() throws IOException, InterruptedException {
    List<Integer> order = new ArrayList<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      order.add(b);
    }
    Collections.shuffle(order, random);
    for (int b : order) {
      local.stop(b);
      local.start(b);
      cluster.awaitWhole(RESTART_TIMEOUT);
    }
    return "every broker restarted gracefully, in the order " + order;
  }

  private String restartAll() throws IOException, InterruptedException {
    local.down();
    // All in one start, broker 0 (the first seed node, which forms the cluster again) first.
    List<Integer> start = new ArrayList<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      start.add(b);
    }
    local.start(start);
    return "every broker stopped gracefully, then started again";
  }

  private String replaceDisk(int broker) throws IOException, InterruptedException {
    local.stop(broker);
    wipeData(broker);
    local.start(broker);
    return "broker " + broker + " stopped, its data directory wiped, started again";
  }

  /**
   * Fills one broker's disk: a file-size limit on its running process ({@code prlimit --fsize}, EFBIG as a full
   * disk gives ENOSPC) just above its largest segment, so the appends to that segment fail within moments, until
   * one of its replicas reports failed (a leader among them fails over), then {@link #DISK_FULL_HOLD} more; then the
   * limit is lifted and its failed replicas reopen their logs by themselves. The victim leads the most shards among
   * the brokers that do not hold the local cluster's H2 journal file (the others reach it through that holder), so
   * the placement journal keeps its room.
   */
  private String diskFull() throws IOException, InterruptedException {
    int victim = cluster.mostLeaders(b -> !holdsJournalFile(b));
    long pid = local.pid(victim);
    long limit = largestSegment(victim) + DISK_FULL_ROOM_BYTES;
    prlimit(pid, Long.toString(limit));
    long start = System.nanoTime();
    try {
      long deadline = start + RESTART_TIMEOUT.toNanos();
      while (!cluster.hasFailedReplica(victim)) {
        if (System.nanoTime() > deadline) {
          throw new IOException("no replica on broker " + victim + " failed " + RESTART_TIMEOUT.toSeconds()
              + " s after its files were limited to " + limit + " bytes");
        }
        Thread.sleep(200);
      }
      long failedMs = (System.nanoTime() - start) / 1_000_000;
      Thread.sleep(DISK_FULL_HOLD.toMillis());
      return "broker " + victim + "'s files limited to " + limit + " bytes (a full disk): a replica failed after "
          + failedMs + " ms; room again " + DISK_FULL_HOLD.toSeconds() + " s later";
    } finally {
      prlimit(pid, "unlimited");
    }
  }

  /** Whether the broker's process has the local cluster's H2 journal file open (H2's AUTO_SERVER host). */
  private boolean holdsJournalFile(int broker) {
    try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(local.pid(broker)), "fd"))) {
      return fds.anyMatch(fd -> {
        try {
          return Files.readSymbolicLink(fd).getFileName().toString().startsWith("journal.");
        } catch (IOException | UnsupportedOperationException gone) {
          return false;
        }
      });
    } catch (IOException notRunning) {
      return false;
    }
  }

  private long largestSegment(int broker) throws IOException {
    try (Stream<Path> files = Files.walk(local.dir().resolve("broker" + broker).resolve("data"))) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException deleted) {
          return 0;
        }
      }).max().orElse(0);
    }
  }

  /**
   * Sets the soft file-size limit of a running process. A broker running under its own group id (partition runs,
   * {@link LoopbackPartition}) may only be limited by a caller of the same group unless the caller holds
   * CAP_SYS_RESOURCE, which root in a container may lack: prlimit then runs under the broker's group id.
   */
  private static void prlimit(long pid, String fsize) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    String gid = realGroupId(pid);
    if (gid != null && !gid.equals(realGroupId(ProcessHandle.current().pid()))) {
      command.addAll(List.of("setpriv", "--regid=" + gid, "--clear-groups"));
    }
    command.addAll(List.of("prlimit", "--pid", Long.toString(pid), "--fsize=" + fsize + ":"));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("prlimit --fsize=" + fsize + " on pid " + pid + " failed: " + out.strip());
    }
  }

  /** The real group id of a process (from /proc), or null when it cannot be read. */
  private static String realGroupId(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("Gid:")) {
          return line.substring(4).trim().split("\\s+")[0];
        }
      }
    } catch (IOException gone) {
      // no such process: prlimit reports it
    }
    return null;
  }

  private String moveLeader() throws IOException, InterruptedException {
    Map<Integer, Integer> leaders = cluster.leaders();
    List<Integer> shards = new ArrayList<>(leaders.keySet());
    int shard = shards.get(random.nextInt(shards.size()));
    int from = leaders.get(shard);
    int to = (from + 1 + random.nextInt(cluster.brokers() - 1)) % cluster.brokers();
    cluster.anyAdmin().postOk("/v1/shard-moves",
        "{\"stream\":\"" + cluster.stream() + "\",\"shard\":" + shard + ",\"to\":" + to + "}");
    return "leadership of shard " + shard + " moved from broker " + from + " to " + to;
  }

  /**
   * Drains the broker under load until it leads nothing, then stops the drain (with three brokers and
   * replication factor 3 it keeps its replicas, so it could not be removed), and rebalancing hands it leaders
   * back during the next rounds.
   */
  private String drain(int broker) throws IOException, InterruptedException {
    cluster.anyAdmin().postOk("/v1/brokers/" + broker + "/drain", "");
    try {
      long deadline = System.nanoTime() + RESTART_TIMEOUT.toNanos();
      while (cluster.leaders().containsValue(broker)) {
        if (System.nanoTime() > deadline) {
          throw new IOException("drained broker " + broker + " still leads shards " + RESTART_TIMEOUT.toSeconds()
              + " s on: " + cluster.leaders());
        }
        Thread.sleep(500);
      }
    } finally {
      cluster.anyAdmin().deleteOk("/v1/brokers/" + broker + "/drain");
    }
    return "broker " + broker + " drained until it led no shard, then undrained";
  }

  /** After a failed round: every broker started (a no-op for running ones) and resumed, so the next starts whole. */
  void heal() throws IOException, InterruptedException {
    if (partition != null) {
      partition.heal();
    }
    List<Integer> start = new ArrayList<>();
    for (int b = 0; b < cluster.brokers(); b++) {
      start.add(b);
      try {
        local.signal(b, "CONT");
      } catch (IOException notRunning) {
        // started below
      }
    }
    local.start(start);
    cluster.awaitWhole(RESTART_TIMEOUT);
  }

  private int randomBroker() {
    return random.nextInt(cluster.brokers());
  }

  private void wipeData(int broker) throws IOException {
    Path data = local.dir().resolve("broker" + broker).resolve("data");
    try (Stream<Path> files = Files.walk(data)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(data)) {
          Files.delete(p);
        }
      }
    }
  }
}
