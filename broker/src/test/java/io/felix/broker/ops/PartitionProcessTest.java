package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.cli.ChaosCommand;
import io.felix.loadgen.chaos.ChaosOptions;
import io.felix.loadgen.chaos.ChaosRun;
import io.felix.loadgen.chaos.ChaosTable;
import io.felix.loadgen.chaos.FaultKind;
import io.felix.loadgen.local.LoopbackPartition;
import io.felix.testing.MachineRequirements;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Network partitions between three supervised broker processes, made with iptables on 127.0.0.1
 * ({@link LoopbackPartition}: each broker's connections to another broker's cluster and replication ports, matched by
 * the broker's group id and those exact ports), under a ledgered load, one round each: a leader cut off from the
 * singleton's host but not from the third broker or the clients, a leader cut off from its followers' replication
 * ports but not from the singleton, and a leader cut off from every other broker. In each, every shard must
 * acknowledge a write within the bound measured from the cut (leadership settled: a leader that lost its majority
 * can acknowledge nothing, so a write acknowledged means a leader holding a majority at its epoch), every
 * acknowledged record must be read back once, at its place and in order (a write acknowledged under a stale epoch
 * would be truncated away: lost), and after the heal every broker must be ready and live again. Needs root and
 * iptables ({@link MachineRequirements}).
 */
@Tag("process")
@Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class PartitionProcessTest {

  static final List<FaultKind> PARTITIONS = List.of(FaultKind.PARTITION_SINGLETON, FaultKind.PARTITION_REPLICATION,
      FaultKind.PARTITION_ISOLATE);

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir; // the brokers' logs stay for a failure

  @Test
  void everyPartitionSettlesKeepsEveryAcknowledgedRecordAndHeals() throws Exception {
    MachineRequirements.require("PartitionProcessTest (iptables rules on 127.0.0.1, as root)",
        LoopbackPartition.unavailableReason());

    ChaosOptions options = ChaosCommand.parse(List.of("--duration", "1s",
        "--faults", String.join(",", PARTITIONS.stream().map(FaultKind::wireName).toList()),
        "--rate", "200", "--seed", "7", "--writable-within", "10s",
        // Cut until every shard is writable, at least 4 s: healed before the split brain resolver downs the cut
        // broker (about 6 s), so a round takes seconds, not a broker's restart; the long chaos runs hold 10 s.
        "--partition-hold", "4s", "--dir", dir.resolve("chaos").toString()));
    ChaosTable table = ChaosRun.execute(options,
        LauncherEnvironment.brokersFromTestClasspath("384m", "FELIX_READY_TIMEOUT", "240"), System.out);

    assertEquals(PARTITIONS.size(), table.rows().size(), table.render());
    for (ChaosTable.Row row : table.rows()) {
      assertEquals(0, row.lost(), table.render());
      assertEquals(0, row.duplicated(), table.render());
      assertEquals(0, row.disordered(), table.render());
    }
    assertEquals(0, table.exitStatus(), table.rounds() + "\n" + table.render());
  }
}
