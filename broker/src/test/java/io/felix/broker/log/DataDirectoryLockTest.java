package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One broker per data directory: a second one is refused, naming the directory, until the first lets go. */
class DataDirectoryLockTest {
  @TempDir
  Path tmp;

  @Test
  void aSecondBrokerOnTheSameDataDirectoryIsRefusedUntilTheFirstReleasesIt() throws IOException {
    Path dataDir = tmp.resolve("data");
    DataDirectoryLock first = DataDirectoryLock.acquire(dataDir);
    IOException refused = assertThrows(IOException.class, () -> DataDirectoryLock.acquire(dataDir));
    assertEquals("data directory " + dataDir + " is in use by another broker (" + dataDir.resolve(
        DataDirectoryLock.FILE) + " is locked): two brokers must not share a data directory", refused.getMessage());
    first.close();
    first.close(); // idempotent
    try (DataDirectoryLock second = DataDirectoryLock.acquire(dataDir)) {
      assertEquals(dataDir.resolve(DataDirectoryLock.FILE), second.file());
    }
  }
}
