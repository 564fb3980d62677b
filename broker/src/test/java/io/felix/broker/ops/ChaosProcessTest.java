package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.cli.ChaosCommand;
import io.felix.loadgen.chaos.ChaosOptions;
import io.felix.loadgen.chaos.ChaosRun;
import io.felix.loadgen.chaos.ChaosTable;
import io.felix.loadgen.chaos.FaultKind;
import io.felix.loadgen.local.LoopbackPartition;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite ({@code chaos}) for about three minutes against three supervised broker processes: every
 * fault kind listed here must keep every acknowledged record exactly once and in order and have every shard
 * writable again within 45 s (a kill of every broker restarts three JVMs at once on two cores). The graceful
 * rolling restart is left out for time (three restarts one after another); the long runs in the README have it.
 * Where iptables can be run, one partition round too (a leader cut off from its followers' replication ports).
 * Every round's cache writer must have puts acknowledged and every key read back must show its latest acknowledged
 * put or a later one. After every round every replica of the stream and the cache must digest its log below its
 * leader's commit offset like the others, and each live broker lead its share of the stream's shards again.
 */
@Tag("process")
@Timeout(value = 12, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class ChaosProcessTest {

  private static final List<FaultKind> FAULTS = List.of(FaultKind.KILL_LEADER, FaultKind.KILL_SINGLETON_HOST,
      FaultKind.PAUSE, FaultKind.KILL_ALL, FaultKind.RESTART_ALL, FaultKind.REPLACE_DISK, FaultKind.DISK_FULL,
      FaultKind.MOVE_LEADER, FaultKind.DRAIN);

  @TempDir Path dir;

  @Test
  void everyFaultRoundKeepsEveryAcknowledgedRecordAndEveryShardWritable() throws Exception {
    List<FaultKind> faults = new ArrayList<>(FAULTS);
    String noPartitions = LoopbackPartition.unavailableReason();
    if (noPartitions == null) {
      faults.add(FaultKind.PARTITION_REPLICATION); // one short partition round; PartitionProcessTest has them all
    } else {
      System.out.println("SKIPPED the partition-replication round of ChaosProcessTest: iptables is unavailable here: "
          + noPartitions);
    }
    ChaosOptions options = ChaosCommand.parse(List.of("--duration", "90s",
        "--faults", String.join(",", faults.stream().map(FaultKind::wireName).toList()),
        "--rate", "200", "--seed", "42", "--writable-within", "45s", "--dir", dir.resolve("chaos").toString()));
    ChaosTable table = ChaosRun.execute(options,
        LauncherEnvironment.brokersFromTestClasspath("384m", "FELIX_READY_TIMEOUT", "240"), System.out);

    assertEquals(faults, table.rows().stream().map(ChaosTable.Row::kind).toList(), table.render());
    for (ChaosTable.Row row : table.rows()) {
      assertEquals(0, row.lost(), table.render());
      assertEquals(0, row.duplicated(), table.render());
      assertEquals(0, row.disordered(), table.render());
      assertTrue(row.cachePuts() > 0, table.render()); // the cache writer ran through every fault
      assertEquals(0, row.cacheKeysLost(), table.render());
      assertEquals(0, row.cacheKeysCorrupt(), table.render());
      assertEquals(0, row.diverged(), table.render()); // every replica holds its leader's log below the commit offset
    }
    assertEquals(0, table.exitStatus(), table.rounds() + "\n" + table.render());
  }
}
