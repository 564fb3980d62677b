package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.cli.ChaosCommand;
import io.felix.loadgen.chaos.ChaosOptions;
import io.felix.loadgen.chaos.ChaosRun;
import io.felix.loadgen.chaos.ChaosTable;
import io.felix.loadgen.chaos.FaultKind;
import io.felix.loadgen.local.LoopbackPartition;
import io.felix.testing.MachineRequirements;
import io.felix.testing.TestTier;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault suite ({@code chaos}) against three supervised broker processes, one cluster for every round: each
 * fault kind run must keep every acknowledged record exactly once and in order and have every shard writable again
 * within 45 s (a kill of every broker restarts three JVMs at once on two cores). Every round's cache writer must
 * have puts acknowledged and every key read back must show its latest acknowledged put or a later one. After every
 * round every replica of the stream and the cache must digest its log below its leader's commit offset like the
 * others, and each live broker lead its share of the stream's shards again.
 *
 * <p>The long tier ({@code -Dtier=long}) runs the whole suite: every fault kind, partitions included (iptables is
 * then required), rounds starting for three minutes. The default tier runs the kinds no other process test covers:
 * {@link #DEFAULT_FAULTS}. The others each have a process test of their own, with sharper bounds: a SIGKILLed leader
 * ({@link BrokerKillTest}), a SIGKILLed singleton host ({@link SingletonHostKillProcessTest}), a paused leader
 * ({@link SilentLeaderProcessTest}), a full disk ({@link DiskFullProcessTest}), the three partitions
 * ({@link PartitionProcessTest}); the graceful rolling restart (three restarts one after another) runs in the long
 * tier only, as it always did.
 */
@Tag("process")
class ChaosProcessTest {

  /**
   * SIGKILL of every broker and a graceful restart of all; a wiped disk; leadership moved and drained away (in the
   * enum's order, as the table's rows).
   */
  static final List<FaultKind> DEFAULT_FAULTS = List.of(FaultKind.KILL_ALL, FaultKind.RESTART_ALL,
      FaultKind.REPLACE_DISK, FaultKind.MOVE_LEADER, FaultKind.DRAIN);
  private static final Duration LONG_TIER_DURATION = Duration.ofMinutes(3);
  /** Hung brokers fail the test, never stall CI. */
  private static final Duration TIMEOUT = TestTier.pick(Duration.ofMinutes(12), Duration.ofMinutes(45));

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir; // the brokers' logs stay for a failure

  @Test
  void everyFaultRoundKeepsEveryAcknowledgedRecordAndEveryShardWritable() {
    List<FaultKind> faults = TestTier.pick(DEFAULT_FAULTS, everyKind());
    Duration duration = TestTier.pick(Duration.ofSeconds(1), LONG_TIER_DURATION); // default: each kind once
    ChaosTable table = assertTimeoutPreemptively(TIMEOUT, () -> ChaosRun.execute(ChaosCommand.parse(List.of(
            "--duration", duration.toSeconds() + "s",
            "--faults", String.join(",", faults.stream().map(FaultKind::wireName).toList()),
            "--rate", "200", "--seed", "42", "--writable-within", "45s", "--dir", dir.resolve("chaos").toString())),
        LauncherEnvironment.brokersFromTestClasspath("384m", "FELIX_READY_TIMEOUT", "240"), System.out));

    assertEquals(faults, table.rows().stream().map(ChaosTable.Row::kind).toList(), table.render()); // enum order
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

  /** Every fault kind; the partition kinds need iptables ({@link MachineRequirements}). */
  private static List<FaultKind> everyKind() {
    List<FaultKind> kinds = new ArrayList<>(List.of(FaultKind.values()));
    if (!MachineRequirements.available("the partition rounds of ChaosProcessTest (iptables rules on 127.0.0.1, as "
        + "root)", LoopbackPartition.unavailableReason())) {
      kinds.removeIf(FaultKind::partition);
    }
    return kinds;
  }
}
