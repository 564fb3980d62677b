package io.felix.bench.log;

import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import io.felix.broker.log.ShardLog;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What an idle replica's log costs a broker: file descriptors and heap per replica, and how long a broker takes to
 * open many of them, new and again after a restart. It opens {@code replicas} logs through the real classes, as a
 * replica does ({@link ShardLog#open}, then {@code replica.state} read, and written when absent), on
 * {@code threads} threads (the replica actors' dispatcher), appends {@code batches} batches of 1 KiB to each and
 * waits for their fsync, then counts {@code /proc/self/fd} and the heap used after a full GC. Then it closes them
 * all and opens them again (a restart), and counts again.
 *
 * <pre>
 * java -Xmx512m -cp bench/target/felix-bench.jar io.felix.bench.log.ReplicaLogFootprint \
 *     [replicas=1000] [threads=8] [batches=1] [dir=java.io.tmpdir] [idleSeconds=0] [idleFileCloseSeconds=60]
 * </pre>
 *
 * With {@code idleSeconds > 0} it waits that long after the appends and counts again: with
 * {@code idleFileCloseSeconds} ({@code felix.log.idle-file-close}) below that wait, the idle logs have closed their
 * files by then.
 */
public final class ReplicaLogFootprint {

  private ReplicaLogFootprint() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = new HashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("arguments are key=value, got '" + a + "'");
      }
      opts.put(a.substring(0, eq), a.substring(eq + 1));
    }
    int replicas = Integer.parseInt(opts.getOrDefault("replicas", "1000"));
    int threads = Integer.parseInt(opts.getOrDefault("threads", "8"));
    int batches = Integer.parseInt(opts.getOrDefault("batches", "1"));
    long idleSeconds = Long.parseLong(opts.getOrDefault("idleSeconds", "0"));
    long idleClose = Long.parseLong(opts.getOrDefault("idleFileCloseSeconds", "60"));
    Path root = Files.createTempDirectory(Path.of(opts.getOrDefault("dir", System.getProperty("java.io.tmpdir"))),
        "felix-footprint");
    LogSettings settings = LogSettings.defaults().withIdleFileClose(Duration.ofSeconds(idleClose));
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.felix"))
        .setLevel(ch.qos.logback.classic.Level.WARN); // one line per log would drown the figures
    System.out.printf("replicas=%d threads=%d batches=%d dir=%s max-heap=%d MiB fd-limit=%s%n", replicas, threads,
        batches, root, Runtime.getRuntime().maxMemory() >> 20, fdLimit());
    try (FlushScheduler flusher = FlushScheduler.start(settings, "footprint-flusher")) {
      Snapshot base = Snapshot.take();
      System.out.println("baseline: " + base);

      Opened created = openAll(root, replicas, threads, settings, flusher);
      System.out.printf("new: opened %d of %d logs in %d ms%s%n", created.logs.size(), replicas, created.millis,
          created.failure == null ? "" : "; stopped by: " + created.failure);
      long appended = appendToAll(created.logs, batches, threads);
      System.out.printf("appended %d batch(es) to each and waited for the fsyncs in %d ms%n", batches, appended);
      report("open, just written", base, Snapshot.take(), created.logs.size());
      if (idleSeconds > 0) {
        Thread.sleep(TimeUnit.SECONDS.toMillis(idleSeconds));
        report("open, idle " + idleSeconds + " s", base, Snapshot.take(), created.logs.size());
      }
      closeAll(created.logs);
      report("closed", base, Snapshot.take(), created.logs.size());

      Opened restarted = openAll(root, created.logs.size(), threads, settings, flusher);
      System.out.printf("restart: opened %d of %d logs in %d ms%s%n", restarted.logs.size(), created.logs.size(),
          restarted.millis, restarted.failure == null ? "" : "; stopped by: " + restarted.failure);
      report("reopened (restart)", base, Snapshot.take(), restarted.logs.size());
      closeAll(restarted.logs);
    } finally {
      try (Stream<Path> tree = Files.walk(root)) {
        for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  private record Opened(List<ShardLog> logs, long millis, String failure) {}

  /** Opens logs 0..n-1 under {@code root} as replicas do; stops at the first failure (say, too many open files). */
  private static Opened openAll(Path root, int n, int threads, LogSettings settings, FlushScheduler flusher)
      throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    UUID incarnation = new UUID(24, 24);
    long started = System.nanoTime();
    List<Future<ShardLog>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Path dir = root.resolve("big-" + i);
      futures.add(pool.submit(() -> {
        ShardLog log = ShardLog.open(dir, settings, flusher);
        ReplicaMetadata metadata = new ReplicaMetadata(dir);
        if (metadata.read().isEmpty()) {
          metadata.write(new ReplicaState(incarnation, log.lastEpoch(), log.logEndOffset() == 0));
        }
        return log;
      }));
    }
    List<ShardLog> logs = new ArrayList<>();
    String failure = null;
    for (Future<ShardLog> f : futures) {
      try {
        logs.add(f.get());
      } catch (java.util.concurrent.ExecutionException e) {
        failure = failure == null ? e.getCause().toString() : failure;
      }
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
    pool.shutdown();
    pool.awaitTermination(1, TimeUnit.MINUTES);
    return new Opened(logs, millis, failure);
  }

  private static long appendToAll(List<ShardLog> logs, int batches, int threads) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    long started = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>();
    for (ShardLog log : logs) {
      futures.add(pool.submit(() -> {
        long end = 0;
        for (int b = 0; b < batches; b++) {
          long epoch = Math.max(1, log.lastEpoch());
          end = log.appendAsLeader(epoch, 1, 0, 0, ByteBuffer.allocate(1024)) + 1;
        }
        return log.awaitDurable(end).toCompletableFuture().get(1, TimeUnit.MINUTES);
      }));
    }
    for (Future<?> f : futures) {
      f.get();
    }
    pool.shutdown();
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  private static void closeAll(List<ShardLog> logs) throws IOException {
    for (ShardLog log : logs) {
      log.close();
    }
  }

  private static void report(String what, Snapshot base, Snapshot now, int logs) {
    long fds = now.fds - base.fds;
    long heap = now.heapBytes - base.heapBytes;
    System.out.printf("%-22s %s; per log: %.2f fds, %.0f bytes of heap%n", what + ":", now, (double) fds / logs,
        (double) heap / logs);
  }

  /** Open file descriptors and heap used after a full GC. */
  private record Snapshot(long fds, long heapBytes) {
    static Snapshot take() throws IOException {
      for (int i = 0; i < 3; i++) {
        System.gc();
      }
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      long fds;
      try (Stream<Path> open = Files.list(Path.of("/proc/self/fd"))) {
        fds = open.count();
      }
      return new Snapshot(fds, heap);
    }

    @Override
    public String toString() {
      return fds + " fds, " + (heapBytes >> 10) + " KiB heap";
    }
  }

  private static String fdLimit() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.UnixOperatingSystemMXBean unix
        ? Long.toString(unix.getMaxFileDescriptorCount()) : "unknown";
  }
}
