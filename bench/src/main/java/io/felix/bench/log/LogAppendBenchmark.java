package io.felix.bench.log;

import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.ThreadParams;

/**
 * Appends batches of 1 KiB records to several shard logs sharing one flush scheduler, under each flush mode:
 * {@code ALWAYS} (a batch counts as stored once fsynced; fsyncs are shared across logs, group commit) and
 * {@code INTERVAL} (stored once written; fsync every 100 ms). "Stored" is what a replica acknowledges on.
 *
 * <ul>
 *   <li>{@link #pipelinedAppend}: appends/s with each thread owning a share of the logs (one owner per log, as
 *       replica actors are) and keeping at most {@code inFlightPerLog} not-yet-stored batches per log, the way a
 *       leader pipelines appends while it waits for acks. The {@code fsyncs} counter gives fsyncs per append.
 *   <li>{@link #appendUntilStored}: the append-to-stored latency of one batch with nothing else in flight on its
 *       log (sampled: JMH prints the percentiles).
 * </ul>
 *
 * Run from the repository root: {@code java -jar bench/target/felix-bench.jar LogAppendBenchmark} (see
 * bench/README.md). The logs live in {@code dir} (default java.io.tmpdir), since fsync cost depends on the disk.
 */
@State(Scope.Benchmark)
@Fork(1)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 10)
@Threads(2)
public class LogAppendBenchmark {

  @Param({"ALWAYS", "INTERVAL"})
  public LogSettings.Flush flush;

  @Param("12")
  public int logs;

  @Param("16")
  public int recordsPerBatch;

  @Param("1024")
  public int recordBytes;

  @Param("8")
  public int inFlightPerLog;

  @Param("")
  public String dir;

  private Path root;
  private FlushScheduler flusher;
  private final List<ShardLog> shardLogs = new ArrayList<>();
  private byte[] payload;

  @Setup(Level.Trial)
  public void openLogs() throws IOException {
    Path base = Path.of(dir.isEmpty() ? System.getProperty("java.io.tmpdir") : dir);
    root = Files.createTempDirectory(base, "felix-log-bench-");
    LogSettings settings = LogSettings.defaults().withFlush(flush, Duration.ofMillis(100));
    flusher = FlushScheduler.start(settings, "felix-log-flusher");
    for (int i = 0; i < logs; i++) {
      shardLogs.add(ShardLog.open(root.resolve("shard-" + i), settings, flusher));
    }
    payload = new byte[recordsPerBatch * recordBytes];
    new Random(42).nextBytes(payload);
  }

  @TearDown(Level.Trial)
  public void deleteLogs() throws Exception {
    for (ShardLog log : shardLogs) {
      log.deleteAll();
    }
    flusher.close();
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** One benchmark thread: the logs it owns and its window of not-yet-stored batches. */
  @State(Scope.Thread)
  public static class Owner {
    final List<ShardLog> mine = new ArrayList<>();
    Semaphore window;
    long next;

    @Setup(Level.Trial)
    public void claimLogs(LogAppendBenchmark bench, ThreadParams thread) {
      int threads = thread.getThreadCount();
      for (int l = thread.getThreadIndex(); l < bench.logs; l += threads) {
        mine.add(bench.shardLogs.get(l));
      }
      if (mine.isEmpty()) {
        throw new IllegalArgumentException("more threads (" + threads + ") than logs (" + bench.logs + ")");
      }
      window = new Semaphore(bench.inFlightPerLog * mine.size());
    }

    /** Every batch appended in the iteration is durable before the next one starts (and before the logs close). */
    @TearDown(Level.Iteration)
    public void drain() throws Exception {
      for (ShardLog log : mine) {
        log.awaitDurable(log.logEndOffset()).toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    }
  }

  /** Fsyncs during the iteration, reported beside the appends (fsyncs per append shows the group commit). */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Fsyncs {
    private long before;
    public long fsyncs;

    @Setup(Level.Iteration)
    public void start(LogAppendBenchmark bench) {
      before = bench.flusher.fsyncCount();
      fsyncs = 0;
    }

    @TearDown(Level.Iteration)
    public void stop(LogAppendBenchmark bench, ThreadParams thread) {
      // The scheduler is shared: each thread reports its share so the sum over threads is the total.
      fsyncs = (bench.flusher.fsyncCount() - before) / thread.getThreadCount();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  public long pipelinedAppend(Owner owner, Fsyncs fsyncs) throws InterruptedException {
    owner.window.acquire();
    ShardLog log = owner.mine.get((int) (owner.next++ % owner.mine.size()));
    long baseOffset = append(log, owner.next);
    log.awaitStored(baseOffset + recordsPerBatch).whenComplete((stored, error) -> owner.window.release());
    return baseOffset;
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MICROSECONDS)
  public long appendUntilStored(Owner owner) throws Exception {
    ShardLog log = owner.mine.get((int) (owner.next++ % owner.mine.size()));
    long baseOffset = append(log, owner.next);
    return log.awaitStored(baseOffset + recordsPerBatch).toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  private long append(ShardLog log, long timestamp) {
    return log.appendAsLeader(1, recordsPerBatch, timestamp, timestamp, ByteBuffer.wrap(payload));
  }
}
