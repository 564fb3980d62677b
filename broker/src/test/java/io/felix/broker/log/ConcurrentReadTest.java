package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Readers on other threads while the owner appends, rolls and truncates: every read returns whole, intact batches
 * (CRC checked) that start with the batch containing the requested offset and run contiguously to nextOffset.
 */
class ConcurrentReadTest {
  @TempDir
  Path tmp;

  @Test
  void readsDuringAppendsRollsAndTruncationsReturnOnlyIntactContiguousBatches() throws Exception {
    LogSettings settings = smallSegments().withSegmentBytes(3000); // rolls every ~15 batches; cuts cross segments
    try (FlushScheduler flusher = FlushScheduler.start(settings, "test-flusher");
        ShardLog log = ShardLog.open(tmp.resolve("a"), settings, flusher)) {
      AtomicBoolean done = new AtomicBoolean();
      ConcurrentLinkedQueue<String> problems = new ConcurrentLinkedQueue<>();
      AtomicLong batchesRead = new AtomicLong();
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        Random random = new Random(r);
        Thread reader = new Thread(() -> {
          while (!done.get()) {
            long end = log.logEndOffset();
            // Half the reads chase the tail, where appends and truncations happen.
            long offset = random.nextBoolean() ? Math.max(0, end - random.nextInt(4))
                : (long) (random.nextDouble() * end);
            try {
              LogRead read = log.read(offset, 1 + random.nextInt(2000));
              long expected = -1;
              BatchDecoder decoder = read.decoder();
              while (decoder.hasNext()) {
                LogBatch batch = decoder.next(); // checks the CRC
                if (expected < 0 && (batch.baseOffset() > offset || batch.nextOffset() <= offset)) {
                  problems.add("first batch " + batch.baseOffset() + " does not contain " + offset);
                }
                if (expected >= 0 && batch.baseOffset() != expected) {
                  problems.add("gap: batch " + batch.baseOffset() + " after " + expected);
                }
                expected = batch.nextOffset();
                batchesRead.incrementAndGet();
              }
              if (expected >= 0 && expected != read.nextOffset()) {
                problems.add("nextOffset " + read.nextOffset() + " but batches end at " + expected);
              }
            } catch (OffsetOutOfRangeException e) {
              // the log was truncated below the offset between reading its end and reading: allowed
            } catch (RuntimeException e) {
              problems.add(e.toString());
            }
          }
        }, "reader-" + r);
        readers.add(reader);
        reader.start();
      }
      Random random = new Random(7);
      int epoch = 0;
      for (int round = 0; round < 60; round++) {
        for (int i = 0; i < 20; i++) {
          log.appendAsLeader(epoch, 1 + random.nextInt(5), 0, 0, payload(round * 100 + i, 10 + random.nextInt(300)));
        }
        if (round % 3 == 2) {
          epoch++;
          log.truncateTo(log.logEndOffset() - 1 - random.nextInt(30));
        }
      }
      done.set(true);
      for (Thread reader : readers) {
        reader.join();
      }
      assertEquals(List.of(), List.copyOf(problems));
      assertTrue(batchesRead.get() > 1000, "only " + batchesRead.get() + " batches read");
    }
  }
}
