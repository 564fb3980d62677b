package io.felix.broker.log;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's one flusher thread: group commit for all shard logs. A log with new data asks for a flush; each
 * round the thread takes every log that asked and fsyncs each once, then the log completes its waiters with its new
 * durable offset. While a round runs, more appends arrive and are covered by the next round, so under load one fsync
 * covers many appends and the fsync rate is bounded by the disk, not by the append rate.
 *
 * <p>With {@link LogSettings.Flush#ALWAYS} a round starts as soon as a log asks; with
 * {@link LogSettings.Flush#INTERVAL} rounds start every flush interval.
 *
 * <p>The thread is never interrupted: an interrupt during {@code FileChannel.force} would close the channel.
 * Waiters' callbacks run on this thread and must not block (piping to an actor is fine).
 */
public final class FlushScheduler implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FlushScheduler.class);
  private static final Runnable STOP = () -> {};

  private final LogSettings.Flush mode;
  private final Duration interval;
  private final LinkedBlockingQueue<Runnable> requests = new LinkedBlockingQueue<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final AtomicLong fsyncs = new AtomicLong();
  private final AtomicLong rounds = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  private FlushScheduler(LogSettings settings, String name) {
    this.mode = settings.flush();
    this.interval = settings.flushInterval();
    this.thread = new Thread(this::run, name);
    this.thread.setDaemon(true);
  }

  /** Starts the flusher thread for the given settings' flush mode. */
  public static FlushScheduler start(LogSettings settings, String threadName) {
    FlushScheduler scheduler = new FlushScheduler(settings, threadName);
    scheduler.thread.start();
    return scheduler;
  }

  /**
   * Asks for {@code flush} to run in a coming round. The caller makes sure a pending request is not queued twice,
   * and calls {@link #countFsync} for each fsync it does (before completing its waiters, so counts are exact).
   */
  void request(Runnable flush) {
    if (!running) {
      throw new IllegalStateException("flush scheduler is stopped");
    }
    requests.add(flush);
  }

  void countFsync() {
    fsyncs.incrementAndGet();
  }

  /** Fsyncs done since start (at most one per log per round). */
  public long fsyncCount() {
    return fsyncs.get();
  }

  /** Rounds run since start. */
  public long roundCount() {
    return rounds.get();
  }

  private void run() {
    List<Runnable> round = new ArrayList<>();
    try {
      while (true) {
        if (mode == LogSettings.Flush.INTERVAL) {
          if (stopped.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
            requests.drainTo(round);
            runRound(round);
            return;
          }
        } else {
          round.add(requests.take());
        }
        requests.drainTo(round);
        if (runRound(round)) {
          return;
        }
        round.clear();
      }
    } catch (InterruptedException e) {
      log.warn("Flusher thread {} was interrupted; no more group commits", thread.getName());
      Thread.currentThread().interrupt();
    }
  }

  /** Runs one round; returns whether it saw the stop request. */
  private boolean runRound(List<Runnable> round) {
    boolean stop = false;
    for (Runnable flush : round) {
      if (flush == STOP) {
        stop = true;
      } else {
        flush.run();
      }
    }
    rounds.incrementAndGet();
    return stop;
  }

  /**
   * Stops the thread after a last round. Logs still open can no longer ask for flushes: close them first (closing
   * a log fsyncs it).
   */
  @Override
  public void close() {
    if (!running) {
      return;
    }
    running = false;
    requests.add(STOP);
    stopped.countDown();
    try {
      thread.join(TimeUnit.SECONDS.toMillis(30));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
