package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.oneBigSegment;
import static io.felix.broker.log.LogTestSupport.payload;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GroupCommitTest {
  @TempDir
  Path tmp;

  @Test
  void appendsToManyLogsFromSeveralThreadsShareFsyncsAndAllBecomeDurable() throws Exception {
    int logs = 12;
    int threads = 4;
    int batchesPerLog = 200;
    FlushScheduler flusher = FlushScheduler.start(oneBigSegment(), "test-flusher");
    List<ShardLog> shardLogs = new ArrayList<>();
    for (int i = 0; i < logs; i++) {
      shardLogs.add(ShardLog.open(tmp.resolve("shard-" + i), oneBigSegment(), flusher));
    }
    AtomicInteger wrongCallbacks = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<List<CompletableFuture<Long>>>> owners = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int owner = t;
      owners.add(pool.submit(() -> {
        // Each thread owns logs owner, owner + threads, ...: one owner per log, as with replica actors.
        List<CompletableFuture<Long>> acks = new ArrayList<>();
        for (int b = 0; b < batchesPerLog; b++) {
          for (int l = owner; l < logs; l += threads) {
            ShardLog log = shardLogs.get(l);
            long base = log.appendAsLeader(1, 16, b, b, payload(b, 1024));
            long end = base + 16;
            acks.add(log.awaitDurable(end).toCompletableFuture().whenComplete((durable, err) -> {
              if (err != null || durable < end) {
                wrongCallbacks.incrementAndGet();
              }
            }));
          }
        }
        return acks;
      }));
    }
    List<CompletableFuture<Long>> all = new ArrayList<>();
    for (Future<List<CompletableFuture<Long>>> f : owners) {
      all.addAll(f.get(60, TimeUnit.SECONDS));
    }
    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    pool.shutdown();

    int appends = logs * batchesPerLog;
    assertEquals(appends, all.size());
    assertEquals(0, wrongCallbacks.get());
    for (ShardLog log : shardLogs) {
      assertEquals(16L * batchesPerLog, log.logEndOffset());
      assertEquals(16L * batchesPerLog, log.durableOffset());
    }
    long fsyncs = flusher.fsyncCount();
    assertTrue(fsyncs >= logs && fsyncs < appends, "fsyncs " + fsyncs + " for " + appends + " appends");
    for (ShardLog log : shardLogs) {
      log.close();
    }
    flusher.close();
  }

  @Test
  void afterTheFlusherStopsTheOwnerFsyncsItsOwnAppends() throws Exception {
    FlushScheduler flusher = FlushScheduler.start(oneBigSegment(), "test-flusher");
    try (ShardLog log = ShardLog.open(tmp.resolve("late"), oneBigSegment(), flusher)) {
      flusher.close();
      log.appendAsLeader(1, 3, 0, 0, payload(1));
      assertEquals(3, log.durableOffset()); // fsynced in the append, not left for a flusher that is gone
      assertEquals(3L, log.awaitDurable(3).toCompletableFuture().getNow(-1L));
    }
  }

  @Test
  void intervalFlushCountsAppendsAsStoredAtOnceAndFsyncsWithinTheInterval() throws Exception {
    LogSettings interval = LogSettings.defaults().withFlush(LogSettings.Flush.INTERVAL, Duration.ofMillis(50));
    try (FlushScheduler flusher = FlushScheduler.start(interval, "test-flusher");
        ShardLog log = ShardLog.open(tmp.resolve("interval"), interval, flusher)) {
      log.appendAsLeader(1, 3, 0, 0, payload(1));
      assertEquals(3L, log.awaitStored(3).toCompletableFuture().getNow(-1L));
      assertEquals(3, log.storedOffset());
      assertEquals(3L, log.awaitDurable(3).toCompletableFuture().get(10, TimeUnit.SECONDS));
      assertEquals(3, log.durableOffset());
      assertEquals(1, flusher.fsyncCount());
    }
  }
}
