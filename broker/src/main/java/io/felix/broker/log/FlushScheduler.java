package io.felix.broker.log;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's flusher: group commit for all shard logs. A log with new data asks for a flush once (it does not ask
 * again until that flush has started); a flusher thread takes the request, fsyncs the log's active segment and the
 * log completes its waiters with its new durable offset. While an fsync runs, more appends arrive and are covered
 * by the next one, so under load one fsync covers many appends and the fsync rate is bounded by the disk, not by the
 * append rate.
 *
 * <p>{@code flush-threads} threads take requests: fsyncs of different files overlap in the disk and the file system
 * journal (measured here: 12 files, 128 KiB each per round, about 2 to 6 times the rounds per second with 4 threads
 * as with 1; more threads did not help). One log is never fsynced by two threads at once (its flush lock).
 *
 * <p>With {@link LogSettings.Flush#ALWAYS} a request is served at once; with {@link LogSettings.Flush#INTERVAL}
 * requests wait for the next tick of the flush interval.
 *
 * <p>It also closes the files of idle logs: every open log registers here, and a sweeper thread closes the files of
 * each one nobody appended to or read from for {@code idle-file-close} ({@link ShardLog#closeFilesIfIdle}), only once
 * everything appended to it is fsynced. That sweep and the fsyncs take the same per-log flush lock, so an fsync never
 * races a close, and a log with unflushed data is never closed before its fsync.
 *
 * <p>Threads are never interrupted: an interrupt during {@code FileChannel.force} would close the channel.
 * Waiters' callbacks run on these threads and must not block (piping to an actor is fine).
 */
public final class FlushScheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FlushScheduler.class);
  private static final Runnable STOP = () -> {};

  private final LogSettings.Flush mode;
  private final Duration interval;
  /** Requests a flusher thread serves now. */
  private final LinkedBlockingQueue<Runnable> requests = new LinkedBlockingQueue<>();
  /** With interval flush, requests waiting for the next tick. */
  private final LinkedBlockingQueue<Runnable> waitingForTick = new LinkedBlockingQueue<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong fsyncs = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  /** The logs open with this scheduler, for the idle sweep. */
  private final Set<ShardLog> openLogs = ConcurrentHashMap.newKeySet();
  private final Duration idleFileClose;
  private final LongSupplier nanoClock;
  private volatile boolean running = true;

  private FlushScheduler(LogSettings settings, String name, LongSupplier nanoClock) {
    this.mode = settings.flush();
    this.interval = settings.flushInterval();
    this.idleFileClose = settings.idleFileClose();
    this.nanoClock = nanoClock;
    for (int i = 0; i < settings.flushThreads(); i++) {
      threads.add(daemon(this::serve, name + "-" + i));
    }
    if (mode == LogSettings.Flush.INTERVAL) {
      threads.add(daemon(this::tick, name + "-tick"));
    }
    if (!idleFileClose.isZero()) {
      threads.add(daemon(this::sweepIdle, name + "-idle"));
    }
  }

  private static Thread daemon(Runnable body, String name) {
    Thread thread = new Thread(body, name);
    thread.setDaemon(true);
    return thread;
  }

  /** Starts the flusher threads for the given settings' flush mode. */
  public static FlushScheduler start(LogSettings settings, String threadName) {
    return start(settings, threadName, System::nanoTime);
  }

  /** As {@link #start(LogSettings, String)}, with the clock the idle close measures idleness by (tests). */
  public static FlushScheduler start(LogSettings settings, String threadName, LongSupplier nanoClock) {
    FlushScheduler scheduler = new FlushScheduler(settings, threadName, nanoClock);
    scheduler.threads.forEach(Thread::start);
    return scheduler;
  }

  /** The clock of the logs' last use (nanoseconds, monotonic). */
  LongSupplier nanoClock() {
    return nanoClock;
  }

  void register(ShardLog log) {
    openLogs.add(log);
  }

  void unregister(ShardLog log) {
    openLogs.remove(log);
  }

  /**
   * Closes the files of every registered log idle for {@code idle-file-close} (see {@link ShardLog#closeFilesIfIdle});
   * the sweeper thread calls it every quarter of that time, at most every 10 s. Returns how many logs it closed.
   */
  public int closeIdleFiles() {
    if (idleFileClose.isZero()) {
      return 0;
    }
    long now = nanoClock.getAsLong();
    long idle = idleFileClose.toNanos();
    int closedNow = 0;
    for (ShardLog log : openLogs) {
      closedNow += log.closeFilesIfIdle(now, idle) ? 1 : 0;
    }
    return closedNow;
  }

  /**
   * Makes every open log durable to its end ({@link ShardLog#checkpoint}), {@code parallelism} logs at a time, and
   * waits up to {@code timeout}. A stopping broker calls it before its replicas stop: each replica closes its log on
   * the replica dispatcher (a thread per core), and a close that must fsync costs a few milliseconds, so 10,000 logs
   * written to shortly before the stop took longer than Pekko's 10 s for stopping the actors (the broker was then
   * killed, and its next start recovered every log's tail). Concurrent fsyncs overlap in the disk; afterwards the
   * closes find nothing to fsync.
   *
   * @return the logs checkpointed within the timeout; one that fails is left to its close, which fails it
   */
  public int checkpointAll(int parallelism, Duration timeout) {
    List<ShardLog> logs = new ArrayList<>(openLogs);
    AtomicInteger done = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(
        Math.max(1, Math.min(parallelism, logs.size())), r -> daemon(r, "felix-log-checkpoint"));
    for (ShardLog shardLog : logs) {
      pool.execute(() -> {
        try {
          shardLog.checkpoint();
          done.incrementAndGet();
        } catch (IOException | RuntimeException e) {
          log.warn("Making log {} durable before the stop failed: {}", shardLog.directory(), e.toString());
        }
      });
    }
    pool.shutdown();
    try {
      if (!pool.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("{} of {} logs made durable within {} before the stop; their closes do the rest", done.get(),
            logs.size(), timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return done.get();
  }

  /** Logs open with this scheduler. */
  public int openLogs() {
    return openLogs.size();
  }

  private void sweepIdle() {
    long every = Math.max(1, Math.min(idleFileClose.toNanos() / 4, TimeUnit.SECONDS.toNanos(10)));
    try {
      while (!stopped.await(every, TimeUnit.NANOSECONDS)) {
        try {
          int closedNow = closeIdleFiles();
          if (closedNow > 0) {
            log.debug("Closed the files of {} log(s) idle for {}", closedNow, idleFileClose);
          }
        } catch (RuntimeException e) {
          log.error("Closing the files of idle logs failed unexpectedly; the sweep goes on", e);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Asks for {@code flush} to run; returns false if the scheduler is stopped (the caller then flushes itself). The
   * caller makes sure a pending request is not queued twice, and calls {@link #countFsync} for each fsync it does
   * (before completing its waiters, so counts are exact).
   */
  synchronized boolean request(Runnable flush) {
    if (!running) {
      return false;
    }
    (mode == LogSettings.Flush.INTERVAL ? waitingForTick : requests).add(flush);
    return true;
  }

  void countFsync() {
    fsyncs.incrementAndGet();
  }

  /** Fsyncs done by the flusher threads since start (at most one per request). */
  public long fsyncCount() {
    return fsyncs.get();
  }

  private void serve() {
    try {
      for (Runnable flush = requests.take(); flush != STOP; flush = requests.take()) {
        try {
          flush.run();
        } catch (RuntimeException e) {
          log.error("A log flush failed unexpectedly; the flusher goes on", e);
        }
      }
    } catch (InterruptedException e) {
      log.warn("Flusher thread {} was interrupted; it stops", Thread.currentThread().getName());
      Thread.currentThread().interrupt();
    }
  }

  private void tick() {
    try {
      while (!stopped.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
        waitingForTick.drainTo(requests);
      }
      waitingForTick.drainTo(requests); // a last round before the threads stop
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops the threads after the requests already made. Logs still open can no longer ask for flushes: close them
   * first (closing a log fsyncs it).
   */
  @Override
  public void close() {
    synchronized (this) { // no request can slip in after the stop markers
      if (!running) {
        return;
      }
      running = false;
    }
    stopped.countDown();
    try {
      for (Thread thread : threads) {
        if (thread.getName().endsWith("-tick") || thread.getName().endsWith("-idle")) {
          thread.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
      for (int i = 0; i < threads.size(); i++) {
        requests.add(STOP);
      }
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
