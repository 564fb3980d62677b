package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A benchmark's cluster, once measured, leaves its logs and configs behind but not its replica logs or journal. */
class LocalClusterDataTest {

  @TempDir Path dir;

  @Test
  void deleteDataRemovesEveryBrokersDataAndTheJournalAndKeepsTheLogs() throws Exception {
    LocalLayout layout = new LocalLayout(dir, 0);
    for (int id = 0; id < 2; id++) {
      Files.createDirectories(layout.dataDir(id).resolve("big-0"));
      Files.writeString(layout.dataDir(id).resolve("big-0").resolve("00000000000000000000.log"), "records");
      Files.writeString(layout.configFile(id), "felix {}");
      Files.writeString(layout.brokerLog(id), "log");
    }
    Files.writeString(layout.journalFile(), "journal");
    Files.writeString(layout.journalLog(), "journal log");

    LocalCluster.at(layout, LaunchSettings.of(Map.of("FELIX_HOME", dir.toString())),
        new PrintStream(new ByteArrayOutputStream())).deleteData();

    for (int id = 0; id < 2; id++) {
      assertFalse(Files.exists(layout.dataDir(id)), "broker " + id + "'s data");
      assertTrue(Files.isRegularFile(layout.brokerLog(id)), "broker " + id + "'s log");
      assertTrue(Files.isRegularFile(layout.configFile(id)), "broker " + id + "'s config");
    }
    assertFalse(Files.exists(layout.journalFile()));
    assertTrue(Files.isRegularFile(layout.journalLog()));
    assertEquals(List.of(0, 1), layout.knownBrokers());
  }
}
