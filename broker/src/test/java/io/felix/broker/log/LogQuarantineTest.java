package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogQuarantineTest {

  @TempDir
  Path dataDir;

  @Test
  void aLogIsMovedAsideWithItsContentAndDeletedOnlyAfterTheRetention() throws Exception {
    AtomicLong now = new AtomicLong(1_000_000);
    LogQuarantine quarantine = new LogQuarantine(dataDir, Duration.ofHours(24), now::get);
    Path log = Files.createDirectories(dataDir.resolve("orders-3"));
    Files.writeString(log.resolve("00000000000000000000.log"), "records");

    Path moved = quarantine.quarantine(log);
    assertEquals(dataDir.resolve("quarantine").resolve("orders-3-1000000"), moved);
    assertFalse(Files.exists(log));
    assertEquals("records", Files.readString(moved.resolve("00000000000000000000.log")));

    now.addAndGet(Duration.ofHours(24).toMillis());
    assertEquals(List.of(), quarantine.purgeExpired(), "kept for the whole retention");
    assertTrue(Files.exists(moved));
    now.incrementAndGet();
    assertEquals(List.of(moved), quarantine.purgeExpired());
    assertFalse(Files.exists(moved));
  }

  @Test
  void purgingWithoutAQuarantineDirectoryDoesNothing() throws Exception {
    assertEquals(List.of(), new LogQuarantine(dataDir, Duration.ofHours(1), () -> 0).purgeExpired());
  }
}
