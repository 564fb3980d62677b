package io.felix.loadgen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import io.felix.launcher.LocalCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * Polls {@code GET /v1/streams} on every broker of a local cluster, one thread per broker, once per period, and keeps
 * the answer times (ms) in one histogram: what an operator's dashboard would see while the cluster is busy. A poll that
 * fails or is not answered within {@link #TIMEOUT} counts as {@link #TIMEOUT}. While paused (the cluster is being
 * stopped and started on purpose) nothing is polled. Polls slower than {@link #SLOW} are also counted per phase of
 * the bench ({@link #phase}), with how they ended, to show when the tail happens.
 */
final class AdminPoller implements AutoCloseable {

  static final Duration TIMEOUT = Duration.ofSeconds(5);
  static final Duration SLOW = Duration.ofSeconds(1);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Duration period;
  private final Histogram latencies = new Histogram(TIMEOUT.toMillis() * 2, 3);
  private final AtomicLong failures = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  /** Per phase, per broker and outcome ("200", "503", "timed out", ...), the polls slower than {@link #SLOW}. */
  private final Map<String, Map<String, Integer>> slow = new TreeMap<>();
  /** When a poll first showed the watched stream with every shard led and in sync since {@link #watch}; 0: not yet. */
  private final AtomicLong firstInSyncNanos = new AtomicLong();
  private volatile String watched;
  private volatile String phase = "start";
  private volatile boolean paused;
  private volatile boolean stopped;

  AdminPoller(Duration period) {
    this.period = period;
  }

  void start(LocalCluster local) {
    for (int b = 0; b < local.brokers(); b++) {
      int broker = b;
      Thread t = new Thread(() -> poll(local, broker), "admin-poller-" + broker);
      t.setDaemon(true);
      threads.add(t);
      t.start();
    }
  }

  private void poll(LocalCluster local, int broker) {
    while (!stopped) {
      long start = System.nanoTime();
      if (!paused) {
        long millis;
        String outcome;
        String during = phase;
        try {
          AdminClient admin = local.admin(broker);
          AdminClient.Reply reply = admin.get("/v1/streams");
          outcome = Integer.toString(reply.status());
          noteInSync(reply, start);
          millis = Math.min(TIMEOUT.toMillis(), (System.nanoTime() - start) / 1_000_000);
          if (!reply.ok()) {
            failures.incrementAndGet();
            millis = TIMEOUT.toMillis();
          }
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          failures.incrementAndGet();
          millis = TIMEOUT.toMillis();
          outcome = e.getClass().getSimpleName();
        }
        if (!paused) { // a poll that straddled the pause measured the stop, not the API
          synchronized (latencies) {
            latencies.recordValue(millis);
            if (millis >= SLOW.toMillis()) {
              slow.computeIfAbsent(during, p -> new TreeMap<>()).merge("broker " + broker + " " + outcome, 1,
                  Integer::sum);
            }
          }
        }
      }
      long rest = period.toNanos() - (System.nanoTime() - start);
      if (rest > 0) {
        try {
          Thread.sleep(rest / 1_000_000, (int) (rest % 1_000_000));
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }

  /**
   * From now on, notes when a poll first shows {@code stream} with no under-replicated shard: every shard's assigned
   * leader leads, with every replica in its in-sync set. A list served stale (an {@code Age} header) does not count.
   */
  void watch(String stream) {
    firstInSyncNanos.set(0);
    watched = stream;
  }

  private void noteInSync(AdminClient.Reply reply, long askedAtNanos) throws IOException {
    String stream = watched;
    if (stream == null || !reply.ok() || reply.stale()) {
      return;
    }
    for (JsonNode listed : JSON.readTree(reply.body())) {
      if (stream.equals(listed.path("name").asText()) && listed.path("under_replicated_shards").isEmpty()) {
        firstInSyncNanos.compareAndSet(0, askedAtNanos);
      }
    }
  }

  /**
   * Waits up to {@code bound} for a poll to show the watched stream led and in sync; when the first one that did was
   * sent ({@link System#nanoTime}), if one did.
   */
  Optional<Long> awaitInSync(Duration bound) throws InterruptedException {
    long deadline = System.nanoTime() + bound.toNanos();
    while (firstInSyncNanos.get() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(period.toMillis());
    }
    long at = firstInSyncNanos.get();
    return at == 0 ? Optional.empty() : Optional.of(at);
  }

  /** Names what the bench does from now on, for the count of slow polls. */
  void phase(String name) {
    phase = name;
  }

  /**
   * Per phase, per broker and outcome, the polls slower than {@link #SLOW}; e.g.
   * {@code create={broker 0 200=3, broker 2 503=1}}.
   */
  Map<String, Map<String, Integer>> slowPolls() {
    synchronized (latencies) {
      Map<String, Map<String, Integer>> copy = new TreeMap<>();
      slow.forEach((p, outcomes) -> copy.put(p, new TreeMap<>(outcomes)));
      return copy;
    }
  }

  void pause() {
    paused = true;
  }

  void resume() {
    paused = false;
  }

  long failures() {
    return failures.get();
  }

  /** Stops polling; the answer times so far. */
  Histogram stop() {
    stopped = true;
    synchronized (latencies) {
      return latencies.copy();
    }
  }

  @Override
  public void close() {
    stopped = true;
    threads.forEach(Thread::interrupt);
  }
}
