package io.felix.loadgen.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.FelixCache;
import io.felix.loadgen.CacheLedger;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The chaos run's table per fault kind and its exit status; the rounds themselves run in ChaosProcessTest. */
class ChaosTableTest {

  private static RoundResult clean(FaultKind kind, long acked, long writableMillis) {
    return new RoundResult(kind, "test", acked, 0, 0, 0, Duration.ofMillis(writableMillis), true,
        new CacheFigures(acked / 10, 0, 0, null), 0, null);
  }

  @Test
  void rowsSumEachKindsRoundsInTheEnumsOrderAndKeepTheWorstTimeToWritable() {
    ChaosTable table = new ChaosTable();
    table.add(clean(FaultKind.KILL_ALL, 100, 12_000));
    table.add(clean(FaultKind.KILL_LEADER, 50, 4_000));
    table.add(clean(FaultKind.KILL_ALL, 70, 19_500));
    table.add(clean(FaultKind.KILL_LEADER, 30, 3_000));

    assertEquals(List.of(
            new ChaosTable.Row(FaultKind.KILL_LEADER, 2, 80, 0, 0, 0, 8, 0, 0, 0, Duration.ofMillis(4_000), 0, 0),
            new ChaosTable.Row(FaultKind.KILL_ALL, 2, 170, 0, 0, 0, 17, 0, 0, 0, Duration.ofMillis(19_500), 0, 0)),
        table.rows());
    assertTrue(table.ok());
    assertEquals(0, table.exitStatus());
    assertEquals(String.join("\n",
            "fault                rounds acknowledged   lost duplicated disordered cache puts keys lost keys corrupt"
                + " diverged  worst writable s     failed",
            "kill-leader               2           80      0          0          0          8         0            0"
                + "        0               4.0          0",
            "kill-all                  2          170      0          0          0         17         0            0"
                + "        0              19.5          0",
            ""),
        table.render());
  }

  @Test
  void aLostOrDuplicatedRecordFailsTheRunAndShowsInItsRow() {
    ChaosTable table = new ChaosTable();
    table.add(clean(FaultKind.REPLACE_DISK, 100, 1_000));
    table.add(new RoundResult(FaultKind.REPLACE_DISK, "test", 90, 3, 2, 0, Duration.ofMillis(2_000), true,
        CacheFigures.NONE, 0, null));

    assertEquals(List.of(new ChaosTable.Row(FaultKind.REPLACE_DISK, 2, 190, 3, 2, 0, 10, 0, 0, 0,
        Duration.ofMillis(2_000), 0, 1)), table.rows());
    assertFalse(table.ok());
    assertEquals(1, table.exitStatus());
  }

  @Test
  void aShardNotWritableInTimeFailsTheRunAndItsTimeIsTheWorst() {
    ChaosTable table = new ChaosTable();
    table.add(clean(FaultKind.PAUSE, 10, 5_000));
    table.add(new RoundResult(FaultKind.PAUSE, "test", 10, 0, 0, 0, Duration.ofMillis(41_200), false,
        CacheFigures.NONE, 0, null));

    ChaosTable.Row row = table.rows().get(0);
    assertEquals(Duration.ofMillis(41_200), row.worstTimeToWritable());
    assertEquals(1, row.notWritableInTime());
    assertEquals(1, row.failed());
    assertTrue(table.render().contains("41.2 (1 late)"), table.render());
    assertFalse(table.ok());
  }

  @Test
  void aRoundThatFailedOutsideTheCountsFailsTheRun() {
    ChaosTable table = new ChaosTable();
    table.add(new RoundResult(FaultKind.RESTART_ALL, "test", 10, 0, 0, 0, Duration.ZERO, true, CacheFigures.NONE, 0,
        "the cluster is not whole 180 s on: brokers [2] not ready"));
    assertFalse(table.ok());
  }

  @Test
  void aRunWithoutRoundsIsNotOk() {
    assertFalse(new ChaosTable().ok());
  }

  @Test
  void theCacheReadBackCountsEachKeyLostOrCorruptAndNamesTheFirst() {
    CacheLedger ledger = new CacheLedger(4, 5, CacheLedger.Writers.ONE);
    CacheLedger.Put current = ledger.attempt(0, 0);
    CacheLedger.Put absent = ledger.attempt(1, 0);
    CacheLedger.Put older = ledger.attempt(2, 0);
    CacheLedger.Put newer = ledger.attempt(2, 0);
    ledger.attempt(3, 0); // failed: its outcome is unknown, so k3 may be absent
    ledger.acknowledged(current, 3);
    ledger.acknowledged(absent, 4);
    ledger.acknowledged(older, 5);
    ledger.acknowledged(newer, 6);
    byte[] foreign = new byte[CacheLedger.VALUE_HEADER];

    CacheFigures figures = CacheFigures.check(ledger, 4, List.of(entry(current.value(), 3), Optional.empty(),
        entry(older.value(), 5), entry(foreign, 7)));

    assertEquals(new CacheFigures(4, 2, 1, "k1 absent, after the put at offset 4 was acknowledged"), figures);
    assertFalse(figures.ok());
    assertTrue(CacheFigures.check(ledger, 4, List.of(entry(current.value(), 3), entry(absent.value(), 4),
        entry(newer.value(), 6), Optional.empty())).ok());
  }

  @Test
  void aLostCacheKeyFailsTheRoundAndShowsInItsLineAndRow() {
    ChaosTable table = new ChaosTable();
    RoundResult round = new RoundResult(FaultKind.KILL_LEADER, "killed broker 1", 50, 0, 0, 0,
        Duration.ofMillis(3_000), true, new CacheFigures(120, 1, 0, "k7 absent"), 0, "cache: 1 keys lost");
    table.add(round);

    assertFalse(round.ok());
    assertEquals("round 2 kill-leader: killed broker 1; all shards writable after 3.0 s; 50 acknowledged, 0 lost,"
        + " 0 duplicated, 0 disordered; cache 120 puts acknowledged, 1 keys lost, 0 corrupt; 0 shards diverged;"
        + " cache: 1 keys lost  FAILED", round.line(2));
    assertEquals(List.of(new ChaosTable.Row(FaultKind.KILL_LEADER, 1, 50, 0, 0, 0, 120, 1, 0, 0,
        Duration.ofMillis(3_000), 0, 1)), table.rows());
    assertFalse(table.ok());
  }

  @Test
  void aShardWhoseReplicasDivergedFailsTheRoundAndShowsInItsLineAndRow() {
    ChaosTable table = new ChaosTable();
    table.add(clean(FaultKind.REPLACE_DISK, 100, 1_000));
    RoundResult round = clean(FaultKind.REPLACE_DISK, 40, 2_000).withReplicas(1,
        "replica check: 1 shard(s) diverged: chaos/4 below commit offset 150 (leader 0): broker 0 0..150 in 20"
            + " batches, digest 1a2b3c4d, broker 1 0..150 in 20 batches, digest deadbeef");
    table.add(round);

    assertFalse(round.ok());
    assertTrue(round.line(2).contains("; 1 shards diverged; replica check: 1 shard(s) diverged: chaos/4 below commit"
        + " offset 150"), round.line(2));
    assertEquals(1, table.rows().get(0).diverged());
    assertEquals(1, table.rows().get(0).failed());
    assertTrue(table.render().contains("            0        1 "), table.render());
    assertFalse(table.ok());
    assertEquals(1, table.exitStatus());
  }

  private static Optional<FelixCache.Entry> entry(byte[] value, long offset) {
    return Optional.of(new FelixCache.Entry(new byte[0], value, 0, offset, 0));
  }
}
