package io.felix.loadgen;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixCache;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * {@code felix perf cache --cache NAME}: a cache workload. Producers (threads) issue gets and puts of keys k0..k{N-1}
 * chosen uniformly, a get with probability --get-ratio, at --rate operations per second over all of them (0:
 * unbounded, each keeping at most --max-outstanding unanswered), for --duration; prints gets/s, puts/s and their
 * latency percentiles (HdrHistogram) every second and at the end.
 *
 * <p>--verify: every get is judged against the run's {@link CacheLedger} (many writers): it must return its key's
 * latest acknowledged put or a later entry of this run, never an older one, never absent once a put was
 * acknowledged, never a value nobody wrote.
 */
public final class CacheRun {
  private static final long MAX_LATENCY_MICROS = TimeUnit.MINUTES.toMicros(2);

  /** The workload's settings, checked by the command line. */
  public record Options(List<HostPort> bootstrap, String cache, ClientMode mode, Acks acks, long keySpace,
      double getRatio, int valueSize, long rate, Duration duration, int producers, int maxOutstanding,
      boolean verify) {}

  private final Options options;
  private final PrintStream out;
  private final Recorder gets = new Recorder(MAX_LATENCY_MICROS, 3);
  private final Recorder puts = new Recorder(MAX_LATENCY_MICROS, 3);
  private final Histogram getsTotal = new Histogram(MAX_LATENCY_MICROS, 3);
  private final Histogram putsTotal = new Histogram(MAX_LATENCY_MICROS, 3);
  private final AtomicLong getsDone = new AtomicLong();
  private final AtomicLong putsDone = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicLong violations = new AtomicLong();
  private final CacheLedger ledger;

  public CacheRun(Options options, PrintStream out) {
    this.options = options;
    this.out = out;
    this.ledger = new CacheLedger((int) options.keySpace(), new java.security.SecureRandom().nextLong(),
        CacheLedger.Writers.MANY);
  }

  /** Runs the workload; 0 when every operation succeeded and (with --verify) no get was stale, else 1. */
  public int run() throws InterruptedException {
    ClientSettings settings = ClientSettings.builder(options.bootstrap()).mode(options.mode()).acks(options.acks())
        .linger(Duration.ofMillis(1)).build();
    try (FelixClient client = new FelixClient(settings)) {
      FelixCache cache = client.cache(options.cache());
      out.printf("cache: %s, %d producers, %d keys, get ratio %.2f, %d-byte values, rate %s, %s, acks %s, mode %s,"
              + " verify %s%n", options.cache(), options.producers(), options.keySpace(), options.getRatio(),
          options.valueSize(), options.rate() == 0 ? "unbounded" : options.rate() + " ops/s", options.duration(),
          options.acks().name().toLowerCase(), options.mode().name().toLowerCase(), options.verify());
      long start = System.nanoTime();
      long deadline = start + options.duration().toNanos();
      List<Thread> workers = new ArrayList<>();
      for (int p = 0; p < options.producers(); p++) {
        Thread t = new Thread(() -> work(cache, deadline), "cache-producer-" + p);
        t.start();
        workers.add(t);
      }
      Thread progress = new Thread(() -> progress(start), "cache-progress");
      progress.setDaemon(true);
      progress.start();
      for (Thread t : workers) {
        t.join();
      }
      progress.interrupt();
      progress.join();
      summary((System.nanoTime() - start) / 1e9);
    }
    return errors.get() == 0 && violations.get() == 0 ? 0 : 1;
  }

  private void work(FelixCache cache, long deadline) {
    OutstandingWindow outstanding = new OutstandingWindow(options.maxOutstanding());
    double perProducer = options.rate() / (double) options.producers();
    long intervalNanos = options.rate() == 0 ? 0 : (long) (1e9 / perProducer);
    long next = System.nanoTime();
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try {
      while (System.nanoTime() < deadline) {
        if (intervalNanos > 0) {
          long wait = next - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
          next += intervalNanos;
        }
        if (!outstanding.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        int key = (int) random.nextLong(options.keySpace());
        if (random.nextDouble() < options.getRatio()) {
          get(cache, key, outstanding);
        } else {
          put(cache, key, outstanding);
        }
      }
      outstanding.awaitEmpty(); // every operation answered
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void put(FelixCache cache, int key, OutstandingWindow outstanding) {
    CacheLedger.Put put = ledger.attempt(key, options.valueSize());
    long sent = System.nanoTime();
    cache.put(CacheLedger.keyBytes(key), put.value()).whenComplete((metadata, failure) -> {
      outstanding.release();
      if (failure != null) {
        failed("put", failure);
        return;
      }
      puts.recordValue(Math.min(MAX_LATENCY_MICROS, (System.nanoTime() - sent) / 1000));
      putsDone.incrementAndGet();
      ledger.acknowledged(put, metadata.offset());
    });
  }

  private void get(FelixCache cache, int key, OutstandingWindow outstanding) {
    long floor = ledger.floor(key);
    long sent = System.nanoTime();
    cache.get(CacheLedger.keyBytes(key)).whenComplete((entry, failure) -> {
      outstanding.release();
      if (failure != null) {
        failed("get", failure);
        return;
      }
      gets.recordValue(Math.min(MAX_LATENCY_MICROS, (System.nanoTime() - sent) / 1000));
      getsDone.incrementAndGet();
      if (options.verify()) {
        check(key, floor, entry);
      }
    });
  }

  private void check(int key, long floor, Optional<FelixCache.Entry> entry) {
    CacheLedger.Finding finding = ledger.check(key, floor, entry);
    if (finding.outcome() != CacheLedger.Outcome.CURRENT && violations.incrementAndGet() <= 10) {
      System.err.println("verify: get of " + finding.problem());
    }
  }

  private void failed(String what, Throwable failure) {
    if (errors.incrementAndGet() <= 5) {
      System.err.println(what + " failed: " + FelixException.from(failure).getMessage());
    }
  }

  private void progress(long start) {
    long lastGets = 0;
    long lastPuts = 0;
    long lastAt = start;
    try {
      while (true) {
        Thread.sleep(1000);
        long now = System.nanoTime();
        Histogram g = gets.getIntervalHistogram();
        Histogram p = puts.getIntervalHistogram();
        synchronized (getsTotal) {
          getsTotal.add(g);
          putsTotal.add(p);
        }
        double seconds = (now - lastAt) / 1e9;
        long gn = getsDone.get();
        long pn = putsDone.get();
        out.printf("[%4ds] gets %8.0f/s p50 %6.2f p99 %7.2f ms | puts %8.0f/s p50 %6.2f p99 %7.2f ms | errors %d"
                + "%s%n", Math.round((now - start) / 1e9), (gn - lastGets) / seconds, ms(g.getValueAtPercentile(50)),
            ms(g.getValueAtPercentile(99)), (pn - lastPuts) / seconds, ms(p.getValueAtPercentile(50)),
            ms(p.getValueAtPercentile(99)), errors.get(), options.verify() ? " stale " + violations.get() : "");
        lastGets = gn;
        lastPuts = pn;
        lastAt = now;
      }
    } catch (InterruptedException e) {
      // run over
    }
  }

  private void summary(double elapsed) {
    synchronized (getsTotal) {
      getsTotal.add(gets.getIntervalHistogram());
      putsTotal.add(puts.getIntervalHistogram());
    }
    out.printf("summary: %d gets (%.0f/s), %d puts (%.0f/s), %d errors in %.1f s%n", getsDone.get(),
        getsDone.get() / elapsed, putsDone.get(), putsDone.get() / elapsed, errors.get(), elapsed);
    out.println("get latency ms: " + percentiles(getsTotal));
    out.println("put latency ms: " + percentiles(putsTotal));
    if (options.verify()) {
      out.printf("verify: %d gets checked, %d returned an entry older than the latest acknowledged put or one nobody "
          + "wrote%n", getsDone.get(), violations.get());
    }
  }

  private static String percentiles(Histogram h) {
    return String.format("p50 %.2f  p90 %.2f  p99 %.2f  p99.9 %.2f  max %.2f", ms(h.getValueAtPercentile(50)),
        ms(h.getValueAtPercentile(90)), ms(h.getValueAtPercentile(99)), ms(h.getValueAtPercentile(99.9)),
        ms(h.getMaxValue()));
  }

  private static double ms(long micros) {
    return Math.round(micros / 10.0) / 100.0;
  }
}
