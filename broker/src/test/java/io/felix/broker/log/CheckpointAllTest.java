package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stopping broker makes every open log durable at once ({@link FlushScheduler#checkpointAll}): afterwards each log
 * is durable to its end with its recovery point there, so its close has nothing to fsync and its next open nothing to
 * recover; a closed log is left alone.
 */
class CheckpointAllTest {
  /** Flush rounds an hour apart: nothing appended becomes durable unless the checkpoint makes it so. */
  static final LogSettings SETTINGS = smallSegments().withFlush(LogSettings.Flush.INTERVAL, Duration.ofHours(1));

  @TempDir
  Path tmp;
  final FlushScheduler flusher = FlushScheduler.start(SETTINGS, "checkpoint-test-flusher");
  final List<ShardLog> logs = new ArrayList<>();

  @AfterEach
  void tearDown() throws IOException {
    for (ShardLog log : logs) {
      log.close();
    }
    flusher.close();
  }

  @Test
  void everyOpenLogIsDurableToItsEndAndItsRecoveryPointIsThere() throws IOException {
    for (int i = 0; i < 20; i++) {
      ShardLog log = ShardLog.open(tmp.resolve("log-" + i), SETTINGS, flusher);
      logs.add(log);
      for (int b = 0; b <= i % 4; b++) {
        log.appendAsLeader(1, 3, 0, 0, payload(b));
      }
      assertEquals(0, log.durableOffset(), "nothing durable before the checkpoint");
    }
    ShardLog closed = logs.remove(19);
    closed.close();

    assertEquals(19, flusher.checkpointAll(4, Duration.ofSeconds(30)));

    for (ShardLog log : logs) {
      assertEquals(log.logEndOffset(), log.durableOffset(), log.directory() + " durable to its end");
      assertEquals(log.logEndOffset(), RecoveryPoint.parse(log.recoveryPointFile().read().orElseThrow()).offset(),
          log.directory() + ": its recovery point is at its end");
    }
  }
}
