package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The port map and the files of a local cluster, written down once. */
class LocalLayoutTest {

  @TempDir Path dir;

  @Test
  void brokerNsPortsAreTheBasesPlusNShiftedByTheOffset() {
    LocalLayout plain = new LocalLayout(dir, 0);
    assertEquals(List.of(18080, 19090, 9092, 19190, 25520), plain.brokerPorts(0));
    assertEquals(List.of(18082, 19092, 9094, 19192, 25522), plain.brokerPorts(2));
    assertEquals(19290, plain.journalPort());

    LocalLayout shifted = new LocalLayout(dir, 6000);
    assertEquals(List.of(24081, 25091, 15093, 25191, 31521), shifted.brokerPorts(1));
    assertEquals(25290, shifted.journalPort());
    assertEquals("pekko://felix@127.0.0.1:31522", shifted.clusterAddress(2));
    assertEquals("jdbc:h2:tcp://127.0.0.1:25290/journal;WRITE_DELAY=0", shifted.journalUrl());
  }

  @Test
  void anOffsetThatPutsAPortOutsideTheRangeIsRefusedNamingTheBounds() {
    IllegalArgumentException high = assertThrows(IllegalArgumentException.class, () -> new LocalLayout(dir, 40000));
    assertEquals("FELIX_PORT_OFFSET 40000 puts ports outside 1..65535 (it must be from -9091 to 39916)",
        high.getMessage());
    assertEquals(65535, new LocalLayout(dir, 39916).clusterPort(LocalLayout.MAX_BROKERS - 1));
    assertThrows(IllegalArgumentException.class, () -> new LocalLayout(dir, -9092)); // Kafka's 9092 would be 0
  }

  @Test
  void theEnvironmentNamesTheDirectoryAndTheOffset() {
    LocalLayout layout = LocalLayout.fromEnvironment(Map.of("FELIX_LOCAL_DIR", dir.toString(),
        "FELIX_PORT_OFFSET", " 1000 "));
    assertEquals(new LocalLayout(dir, 1000), layout);
    assertEquals(dir.resolve("data/local").toAbsolutePath(),
        LocalLayout.fromEnvironment(Map.of("FELIX_HOME", dir.toString())).dir());
    assertEquals(0, LocalLayout.fromEnvironment(Map.of("FELIX_HOME", dir.toString())).portOffset());
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
        () -> LocalLayout.fromEnvironment(Map.of("FELIX_HOME", dir.toString(), "FELIX_PORT_OFFSET", "1k")));
    assertEquals("FELIX_PORT_OFFSET must be a whole number, got '1k'", bad.getMessage());
  }

  @Test
  void eachBrokersFilesLiveInItsDirectoryAndTheKnownBrokersAreThoseWithAConfig() throws Exception {
    LocalLayout layout = new LocalLayout(dir, 0);
    assertEquals(dir.resolve("broker3/broker.conf"), layout.configFile(3));
    assertEquals(dir.resolve("broker3/data"), layout.dataDir(3));
    assertEquals(dir.resolve("broker3/broker.log"), layout.brokerLog(3));
    assertEquals(dir.resolve("broker3/broker.pid"), layout.brokerPidFile(3));
    assertEquals(dir.resolve("broker3/supervisor.pid"), layout.supervisorPidFile(3));
    assertEquals(dir.resolve("broker3/stopped"), layout.stoppedMark(3));
    assertEquals(dir.resolve("broker3/cpu-budget"), layout.cpuBudgetFile(3));
    assertEquals(dir.resolve("journal.mv.db"), layout.journalFile());
    assertEquals(dir.resolve("certs/ca.crt"), layout.caFile());

    assertEquals(List.of(), layout.knownBrokers());
    for (int broker : List.of(10, 2, 0)) {
      Files.createDirectories(layout.brokerDir(broker));
      Files.writeString(layout.configFile(broker), "felix {}");
    }
    Files.createDirectories(layout.brokerDir(5)); // no config: not a broker of this cluster
    Files.createDirectories(dir.resolve("brokerX"));
    assertEquals(List.of(0, 2, 10), layout.knownBrokers());
  }
}
