package io.felix.loadgen;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * {@code produce}: producers share one {@link FelixClient} (so their records batch together), each writing
 * {@link RecordFormat} values with its own sequence numbers.
 *
 * <p>Pacing: at a fixed rate every record has an intended send time (start + n x interval); a producer parks
 * until then (no spinning) and latency is measured from the intended time, not from when it was actually sent,
 * so a stall that delays later sends shows in their latency (no coordinated omission). Unbounded (rate 0): as
 * fast as {@code max-outstanding} unanswered records per producer allows, latency from the send.
 */
public final class ProduceRun {
  private static final long MAX_LATENCY_MICROS = TimeUnit.HOURS.toMicros(1);

  private final ProduceOptions options;
  private final PrintStream out;
  private final long runId = new SecureRandom().nextLong() & Long.MAX_VALUE;
  private final Recorder recorder = new Recorder(MAX_LATENCY_MICROS, 3);
  private final Histogram total = new Histogram(MAX_LATENCY_MICROS, 3);
  private final AtomicLong acked = new AtomicLong();
  /** Acknowledged records sent after the warm-up: the figures' records. */
  private final AtomicLong ackedMeasured = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong notAppended = new AtomicLong();
  private final List<ProducerLedger> ledgers = new ArrayList<>();
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean stopping;
  private FelixClient client;
  private long startNanos;
  /** Where the figures start: the end of the warm-up (the start without one). */
  private volatile long measuredFromNanos;
  private Runnable whenMeasuring = () -> {};

  public ProduceRun(ProduceOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  /**
   * A quiet, ledgered run at a steady rate (256-byte records, acks quorum, cluster mode) that lasts until
   * {@link #stop()}: the chaos command runs one per round and verifies its {@link Summary}.
   */
  public static ProduceRun steady(List<HostPort> bootstrap, String stream, long rate, int producers) {
    ProduceOptions options = new ProduceOptions(bootstrap, stream, ClientMode.CLUSTER, 256, rate,
        Duration.ofDays(365), 0, producers, Acks.QUORUM, 0, null, Duration.ofMillis(5), 256 * 1024, 10_000,
        true);
    return new ProduceRun(options, new PrintStream(OutputStream.nullOutputStream()));
  }

  /** Runs to the end (or Ctrl-C), prints the summary, writes the JSON; returns the exit code. */
  public int run() throws IOException, InterruptedException {
    Thread hook = new Thread(this::interrupted, "produce-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      Summary summary = produce();
      print(summary);
      if (options.json() != null) {
        summary.write(options.json());
        out.println("summary written to " + options.json());
      }
      return summary.sent() > 0 && summary.acked() == 0 ? 1 : 0;
    } catch (IllegalStateException streamProblem) {
      System.err.println("produce: " + streamProblem.getMessage());
      return 1;
    } finally {
      finished.countDown();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // already shutting down: the hook is running and waits for us
      }
    }
  }

  /**
   * Produces until the duration, the record count or {@link #stop()}, then closes the client (whatever is still
   * unanswered fails, so every sent record is in the ledger) and returns the summary.
   *
   * @throws IllegalStateException naming the problem when the stream cannot be produced to
   */
  public Summary produce() throws InterruptedException {
    ClientSettings settings = ClientSettings.builder(options.bootstrap())
        .mode(options.mode())
        .acks(options.acks())
        .linger(options.linger())
        .batchSizeBytes(options.batchSizeBytes())
        .idempotence(options.idempotence())
        .credentials(options.credentials())
        .tls(options.tls())
        .build();
    client = new FelixClient(settings);
    String problem = StreamCheck.problem(client, options.stream());
    if (problem != null) {
      client.close();
      throw new IllegalStateException(problem);
    }
    out.printf("produce: stream %s, %d producers, %d-byte records, rate %s, %s, acks %s, mode %s, idempotence %s,"
        + " run id %d%n",
        options.stream(), options.producers(), options.recordSize(),
        options.rate() == 0 ? "unbounded" : options.rate() + "/s",
        options.records() > 0 ? options.records() + " records" : "for " + options.duration().toSeconds() + " s",
        options.acks().name().toLowerCase(), options.mode().name().toLowerCase(),
        options.idempotence() ? "on" : "off", runId);
    long warmupNanos = options.warmup() == null ? 0 : options.warmup().toNanos();
    if (warmupNanos == 0) {
      whenMeasuring.run();
    }
    startNanos = System.nanoTime();
    measuredFromNanos = startNanos + warmupNanos;
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < options.producers(); p++) {
      ProducerLedger ledger = new ProducerLedger(p);
      ledgers.add(ledger);
      Thread t = new Thread(() -> produce(ledger), "producer-" + p);
      producers.add(t);
      t.start();
    }
    Thread progress = new Thread(this::progressLoop, "produce-progress");
    progress.setDaemon(true);
    progress.start();
    if (warmupNanos > 0) {
      for (long left = measuredFromNanos - System.nanoTime(); left > 0 && !stopping;
          left = measuredFromNanos - System.nanoTime()) {
        TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
      }
      whenMeasuring.run();
    }
    for (Thread t : producers) {
      t.join();
    }
    client.close();
    progress.interrupt();
    return summary();
  }

  /** Runs {@code action} where the figures start: after the warm-up, or before the first record without one. */
  public void whenMeasuring(Runnable action) {
    this.whenMeasuring = action;
  }

  /** Ends the run: producers send nothing more; {@link #produce()} returns once the sent records are answered. */
  public void stop() {
    stopping = true;
  }

  /** Records acknowledged so far, of those sent after the warm-up. */
  public long acknowledged() {
    return ackedMeasured.get();
  }

  /** Ctrl-C: stop producing and let run() print the summary so far before the JVM exits. */
  private void interrupted() {
    stopping = true;
    if (client == null) {
      return;
    }
    try {
      finished.await(client.settings().requestTimeout().toSeconds() + 10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void produce(ProducerLedger ledger) {
    int p = ledger.producer;
    long quota = options.records() == 0 ? Long.MAX_VALUE
        : options.records() / options.producers() + (p < options.records() % options.producers() ? 1 : 0);
    long deadline = options.duration() == null ? Long.MAX_VALUE : measuredFromNanos + options.duration().toNanos();
    long interval = options.rate() == 0 ? 0 : (long) (1e9 * options.producers() / options.rate());
    Semaphore outstanding = new Semaphore(options.maxOutstanding());
    // spread producers' schedules over one interval so they do not all fire at once
    long first = startNanos + interval * p / options.producers();
    for (long seq = 0; seq < quota && !stopping; seq++) {
      long intended = interval == 0 ? System.nanoTime() : first + seq * interval;
      if (intended >= deadline || (interval == 0 && System.nanoTime() >= deadline)) {
        break;
      }
      for (long wait = intended - System.nanoTime(); wait > 0 && !stopping; wait = intended - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      outstanding.acquireUninterruptibly();
      byte[] value = RecordFormat.encode(runId, p, seq, options.recordSize());
      byte[] key = options.keySpace() == 0 ? null
          : ("k" + Math.floorMod(p * 1_000_003L + seq, options.keySpace())).getBytes(StandardCharsets.UTF_8);
      long sequence = seq;
      ledger.sent(seq);
      client.produce(options.stream(), key, value).whenComplete((m, e) -> {
        outstanding.release();
        if (e == null) {
          if (intended >= measuredFromNanos) {
            long micros = (System.nanoTime() - intended) / 1000;
            recorder.recordValue(Math.min(Math.max(micros, 0), MAX_LATENCY_MICROS));
            ackedMeasured.incrementAndGet();
          }
          acked.incrementAndGet();
          ledger.acked(sequence);
        } else {
          FelixException cause = FelixException.from(e);
          errors.incrementAndGet();
          if (cause.notAppended()) {
            notAppended.incrementAndGet();
          }
          ledger.failed(sequence, cause);
          if (errors.get() <= 5) {
            System.err.println("produce failed: " + cause.getMessage());
          }
        }
      });
    }
  }

  private void progressLoop() {
    long lastAcked = 0;
    long lastAt = System.nanoTime();
    try {
      while (true) {
        Thread.sleep(1000);
        long now = System.nanoTime();
        long a = acked.get();
        Histogram interval = recorder.getIntervalHistogram();
        synchronized (total) {
          total.add(interval);
        }
        double seconds = (now - lastAt) / 1e9;
        double rate = (a - lastAcked) / seconds;
        out.printf("[%4ds] %9.0f rec/s %8.2f MB/s  p50 %7.2f ms  p99 %7.2f ms  max %8.2f ms  errors %d  retries %d%s%n",
            Math.round((now - startNanos) / 1e9), rate, rate * options.recordSize() / 1e6,
            ms(interval.getValueAtPercentile(50)), ms(interval.getValueAtPercentile(99)),
            ms(interval.getMaxValue()), errors.get(), client.retries(), now < measuredFromNanos ? "  (warm-up)" : "");
        lastAcked = a;
        lastAt = now;
      }
    } catch (InterruptedException e) {
      // run over
    }
  }

  private static double ms(long micros) {
    return Math.round(micros / 10.0) / 100.0;
  }

  /** The figures of the records sent after the warm-up; sent and acknowledged count every record. */
  private Summary summary() {
    double elapsed = Math.max(System.nanoTime() - measuredFromNanos, 1) / 1e9;
    Histogram h;
    synchronized (total) {
      total.add(recorder.getIntervalHistogram());
      h = total.copy();
    }
    Map<String, Double> latency = new LinkedHashMap<>();
    latency.put("p50", ms(h.getValueAtPercentile(50)));
    latency.put("p90", ms(h.getValueAtPercentile(90)));
    latency.put("p99", ms(h.getValueAtPercentile(99)));
    latency.put("p99.9", ms(h.getValueAtPercentile(99.9)));
    latency.put("max", ms(h.getMaxValue()));
    List<Summary.ProducerResult> results = new ArrayList<>();
    long sent = 0;
    for (ProducerLedger l : ledgers) {
      Summary.ProducerResult r = l.result();
      results.add(r);
      sent += r.sent();
    }
    long a = acked.get();
    long measured = ackedMeasured.get();
    return new Summary(options.stream(), runId, options.mode().name().toLowerCase(),
        options.acks().name().toLowerCase(), options.recordSize(), options.producers(),
        Math.round(elapsed * 1000) / 1000.0, sent, a, notAppended.get(), errors.get() - notAppended.get(),
        client.retries(), Math.round(measured / elapsed),
        Math.round(measured * options.recordSize() / elapsed / 1e4) / 100.0, latency, results);
  }

  private void print(Summary s) {
    out.printf("summary: %d sent, %d acknowledged, %d failed (%d certainly not stored, %d uncertain), "
            + "%d retries in %.1f s%n",
        s.sent(), s.acked(), s.failedNotAppended() + s.failedUncertain(), s.failedNotAppended(),
        s.failedUncertain(), s.retries(), s.elapsedSeconds());
    out.printf("throughput: %.0f records/s, %.2f MB/s%n", s.recordsPerSecond(), s.megabytesPerSecond());
    Map<String, Double> l = s.latencyMs();
    out.printf("latency ms: p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f%n",
        l.get("p50"), l.get("p90"), l.get("p99"), l.get("p99.9"), l.get("max"));
  }
}
