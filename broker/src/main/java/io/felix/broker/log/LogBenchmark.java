package io.felix.broker.log;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Recorder;

/**
 * Appends batches of 1 KiB records to several shard logs with {@code flush = always} (group commit) and reports
 * appends/s, MB/s, fsyncs/s and the append-to-durable latency. Not a test: run it by hand.
 *
 * <pre>
 * mvn -B -o -pl protocol,broker package -DskipTests
 * java -cp broker/target/felix-broker.jar io.felix.broker.log.LogBenchmark \
 *     [logs=12] [threads=2] [records-per-batch=16] [record-bytes=1024] [seconds=10] [in-flight-per-log=8]
 *     [flush-threads=4] [dir=java.io.tmpdir]
 * </pre>
 *
 * Each thread owns a share of the logs (one owner per log, as replica actors are) and keeps at most
 * {@code in-flight-per-log} unflushed batches per log, the way a leader pipelines appends while it waits for acks.
 * Then it closes the logs and reopens them with each {@code verify-on-open} mode, timing the recovery scan.
 */
public final class LogBenchmark {
  private LogBenchmark() {}

  public static void main(String[] args) throws Exception {
    int logs = intArg(args, 0, 12);
    int threads = intArg(args, 1, 2);
    int recordsPerBatch = intArg(args, 2, 16);
    int recordBytes = intArg(args, 3, 1024);
    int seconds = intArg(args, 4, 10);
    int inFlight = intArg(args, 5, 8);
    int flushThreads = intArg(args, 6, LogSettings.defaults().flushThreads());
    Path base = Paths.get(args.length > 7 ? args[7] : System.getProperty("java.io.tmpdir"));
    Path root = Files.createTempDirectory(base, "felix-log-bench-");

    LogSettings settings = LogSettings.defaults().withFlushThreads(flushThreads);
    FlushScheduler flusher = FlushScheduler.start(settings, "felix-log-flusher");
    List<ShardLog> shardLogs = new ArrayList<>();
    for (int i = 0; i < logs; i++) {
      shardLogs.add(ShardLog.open(root.resolve("shard-" + i), settings, flusher));
    }
    byte[] payload = new byte[recordsPerBatch * recordBytes];
    new java.util.Random(42).nextBytes(payload);
    LongAdder durableBatches = new LongAdder();
    AtomicLong failures = new AtomicLong();
    Recorder latency = new Recorder(3);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);

    List<Thread> owners = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int owner = t;
      Thread thread = new Thread(() -> {
        List<ShardLog> mine = new ArrayList<>();
        for (int l = owner; l < logs; l += threads) {
          mine.add(shardLogs.get(l));
        }
        Semaphore window = new Semaphore(inFlight * mine.size());
        try {
          for (long n = 0; System.nanoTime() < deadline; n++) {
            window.acquire();
            ShardLog log = mine.get((int) (n % mine.size()));
            long started = System.nanoTime();
            long baseOffset = log.appendAsLeader(1, recordsPerBatch, n, n, ByteBuffer.wrap(payload));
            log.awaitDurable(baseOffset + recordsPerBatch).whenComplete((durable, err) -> {
              if (err != null) {
                failures.incrementAndGet();
              } else {
                durableBatches.increment();
                latency.recordValue((System.nanoTime() - started) / 1000);
              }
              window.release();
            });
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "owner-" + t);
      owners.add(thread);
    }
    long fsyncsBefore = flusher.fsyncCount();
    long started = System.nanoTime();
    owners.forEach(Thread::start);
    for (Thread thread : owners) {
      thread.join();
    }
    for (ShardLog log : shardLogs) {
      log.awaitDurable(log.logEndOffset()).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    double elapsed = (System.nanoTime() - started) / 1e9;
    long fsyncs = flusher.fsyncCount() - fsyncsBefore;
    long batches = durableBatches.sum();
    double mb = batches * (double) (payload.length + LogBatch.HEADER_BYTES) / 1e6;
    var histogram = latency.getIntervalHistogram();
    System.out.printf("logs=%d threads=%d batch=%d x %d B in-flight/log=%d flush=always flush-threads=%d, %.1f s%n",
        logs, threads, recordsPerBatch, recordBytes, inFlight, flushThreads, elapsed);
    System.out.printf("appends/s %.0f   records/s %.0f   MB/s %.1f   fsyncs/s %.0f   "
            + "appends per fsync %.1f   failures %d%n",
        batches / elapsed, batches * recordsPerBatch / elapsed, mb / elapsed, fsyncs / elapsed,
        batches / (double) Math.max(1, fsyncs), failures.get());
    System.out.printf("append->durable latency ms: p50 %.2f  p99 %.2f  max %.2f%n",
        histogram.getValueAtPercentile(50) / 1000.0, histogram.getValueAtPercentile(99) / 1000.0,
        histogram.getMaxValue() / 1000.0);
    // Reopen, verifying every batch, then only the unflushed part; the files are in the page cache (CPU cost).
    long bytesOnDisk = 0;
    for (ShardLog log : shardLogs) {
      log.close();
      try (var files = Files.list(log.directory())) {
        for (Path f : files.toList()) {
          bytesOnDisk += Files.size(f);
        }
      }
    }
    for (LogSettings.VerifyOnOpen verify : LogSettings.VerifyOnOpen.values()) {
      long reopenStarted = System.nanoTime();
      List<ShardLog> reopened = new ArrayList<>();
      for (int i = 0; i < logs; i++) {
        reopened.add(ShardLog.open(root.resolve("shard-" + i), settings.withVerifyOnOpen(verify), flusher));
      }
      double reopenSeconds = (System.nanoTime() - reopenStarted) / 1e9;
      System.out.printf("reopen with verify-on-open=%s (page cache warm): %.0f MB in %.2f s%n",
          verify.name().toLowerCase(java.util.Locale.ROOT), bytesOnDisk / 1e6, reopenSeconds);
      for (ShardLog log : reopened) {
        if (verify == LogSettings.VerifyOnOpen.UNFLUSHED) {
          log.deleteAll();
        } else {
          log.close();
        }
      }
    }
    flusher.close();
    Files.deleteIfExists(root);
  }

  private static int intArg(String[] args, int i, int fallback) {
    return args.length > i ? Integer.parseInt(args[i]) : fallback;
  }

}
