package io.felix.loadgen.chaos;

import io.felix.client.ClientSettings;
import io.felix.client.FelixCache;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.HostPort;
import io.felix.loadgen.CacheLedger;
import io.felix.protocol.client.Acks;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;

/**
 * The cache side of a chaos round: one thread puts into the cache at a steady rate through the fault (acks quorum,
 * keys from a small key space, so that they are overwritten), keeping the run's {@link CacheLedger}; once stopped
 * and every put answered, every key is read back and judged against the ledger.
 */
final class CacheWriter implements AutoCloseable {
  /** Keys k0..k499: at 100 puts/s each is overwritten every 5 s on average, so most are in flight at a fault. */
  static final int KEYS = 500;
  private static final long PUTS_PER_SECOND = 100;
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  private final FelixClient client;
  private final FelixCache cache;
  private final CacheLedger ledger;
  private final Thread thread = new Thread(this::write, "chaos-cache-writer");
  private final AtomicLong acknowledged = new AtomicLong();
  private final AtomicLong unanswered = new AtomicLong();
  private volatile boolean stopping;

  CacheWriter(List<HostPort> bootstrap, String cacheName, CacheLedger ledger) {
    this.client = new FelixClient(ClientSettings.builder(bootstrap).acks(Acks.QUORUM).build());
    this.cache = client.cache(cacheName);
    this.ledger = ledger;
  }

  void start() {
    thread.start();
  }

  /**
   * Stops putting and waits until every put was acknowledged or failed, so that the ledger is final (the client
   * fails a put at the latest after its delivery timeout).
   */
  void stop() throws InterruptedException, IOException {
    stopping = true;
    thread.join();
    Duration wait = client.settings().deliveryTimeout().plus(Duration.ofSeconds(30));
    long deadline = System.nanoTime() + wait.toNanos();
    while (unanswered.get() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IOException(unanswered.get() + " cache puts unanswered " + wait.toSeconds() + " s on");
      }
      Thread.sleep(RETRY_PAUSE.toMillis());
    }
  }

  /** Puts acknowledged so far. */
  long acknowledged() {
    return acknowledged.get();
  }

  /**
   * Reads every key back (a multi-get per shard, from its leader), trying again until {@code within} is over while
   * a shard cannot be read, and judges the reads against the ledger.
   */
  CacheFigures readBack(Duration within) throws IOException, InterruptedException {
    List<byte[]> keys = IntStream.range(0, ledger.keys()).mapToObj(CacheLedger::keyBytes).toList();
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      try {
        List<Optional<FelixCache.Entry>> reads =
            cache.getAll(keys).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        return CacheFigures.check(ledger, acknowledged.get(), reads);
      } catch (ExecutionException | TimeoutException e) {
        if (System.nanoTime() > deadline) {
          String why = e instanceof ExecutionException ? FelixException.from(e.getCause()).getMessage() : "no answer";
          throw new IOException("reading the cache back failed " + within.toSeconds() + " s on: " + why);
        }
        Thread.sleep(RETRY_PAUSE.toMillis());
      }
    }
  }

  /** Ends the writer (also when the round was interrupted before {@link #stop()}) and its client. */
  @Override
  public void close() {
    stopping = true;
    client.close();
  }

  private void write() {
    long interval = TimeUnit.SECONDS.toNanos(1) / PUTS_PER_SECOND;
    long next = System.nanoTime();
    while (!stopping) {
      for (long wait = next - System.nanoTime(); wait > 0 && !stopping; wait = next - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      next += interval;
      CacheLedger.Put put = ledger.attempt(ThreadLocalRandom.current().nextInt(ledger.keys()), 0);
      unanswered.incrementAndGet();
      // A failed put's outcome is unknown: it stays allowed by the ledger (a put of this run at a later offset).
      cache.put(CacheLedger.keyBytes(put.key()), put.value()).whenComplete((metadata, failure) -> {
        if (failure == null) {
          ledger.acknowledged(put, metadata.offset());
          acknowledged.incrementAndGet();
        }
        unanswered.decrementAndGet();
      });
    }
  }
}
