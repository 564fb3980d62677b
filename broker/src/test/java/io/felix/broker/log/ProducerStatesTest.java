package io.felix.broker.log;

import static io.felix.broker.log.LogTestSupport.BATCH;
import static io.felix.broker.log.LogTestSupport.payload;
import static io.felix.broker.log.LogTestSupport.smallSegments;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.log.ProducerStates.Outcome;
import io.felix.broker.log.ProducerStates.Verdict;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The idempotent producers' state of a log: checks, expiry, and its rebuild from snapshot and log on open. */
class ProducerStatesTest {
  static final long PRODUCER = 42;

  @TempDir
  Path tmp;
  FlushScheduler flusher;

  @BeforeEach
  void startFlusher() {
    flusher = FlushScheduler.start(smallSegments(), "test-flusher");
  }

  @AfterEach
  void stopFlusher() {
    flusher.close();
  }

  static ProducerStamp stamp(int epoch, int baseSequence) {
    return new ProducerStamp(PRODUCER, epoch, baseSequence);
  }

  @Test
  void aNewProducersSequenceAfterOneItsBrokerRefusedIsOutOfOrderAndTheRefusedOneAndAKnownProducersAreNot() {
    ProducerStates states = new ProducerStates(() -> 0L);
    Verdict early = states.check(stamp(0, 3), 2, 0);
    assertEquals(Outcome.OUT_OF_ORDER, early.outcome());
    assertEquals("producer 42 (epoch 0) is new to this shard and sent sequence 3 before sequence 0, which this broker"
        + " refused while it did not lead yet; that batch must come first", early.problem());
    assertEquals(Outcome.APPEND, states.check(stamp(0, 0), 3, 0).outcome(), "the refused batch itself");
    assertEquals(Outcome.APPEND, states.check(stamp(0, 3), 2, RefusedSequences.NONE).outcome(), "no refusal");
    states.onBatch(stamp(0, 0), 0, 3, 1);
    assertEquals(Outcome.APPEND, states.check(stamp(0, 3), 2, 0).outcome(), "known: checked as always");
  }

  /** Appends batch i (3 records, sequences 3i..3i+2) of PRODUCER at epoch 0, checked first as the leader does. */
  static long appendChecked(ShardLog log, int i, long timestamp) {
    assertEquals(Outcome.APPEND, log.producers().check(stamp(0, 3 * i), 3).outcome(), "batch " + i);
    return log.appendAsLeader(1, 3, timestamp, timestamp, stamp(0, 3 * i), payload(i));
  }

  @Test
  void aDuplicateWithinTheLastFiveBatchesIsAnsweredWithItsOriginalOffset() throws IOException {
    try (ShardLog log = ShardLog.open(tmp.resolve("log"), smallSegments(), flusher)) {
      log.appendAsLeader(1, 2, 0, 0, payload(99)); // someone else's records first: offsets are not sequences
      for (int i = 0; i < 7; i++) {
        assertEquals(2 + 3L * i, appendChecked(log, i, 1_000));
      }
      for (int i = 2; i < 7; i++) {
        Verdict v = log.producers().check(stamp(0, 3 * i), 3);
        assertEquals(new Verdict(Outcome.DUPLICATE, 2 + 3L * i, ""), v, "batch " + i);
      }
      Verdict tooOld = log.producers().check(stamp(0, 3), 3);
      assertEquals(Outcome.OUT_OF_ORDER, tooOld.outcome());
      assertEquals("producer 42 (epoch 0) sent sequence 3; this shard expects 21 (the batch is older than the last "
          + "5 batches it remembers)", tooOld.problem());
      assertEquals(Outcome.APPEND, log.producers().check(stamp(0, 21), 4).outcome());
      assertEquals(23L, log.logEndOffset(), "checks append nothing");
    }
  }

  /**
   * kafka-clients bounds its requests in flight per connection, not per partition: while a partition's five batches
   * wait at a leader that a move fenced (their answers held back by the request's other partitions), the client,
   * having read the new leader in metadata, sends the partition's next batches there, and the new leader, which
   * holds the five, appends them after. Its retries of the five must still be duplicates there: OUT_OF_ORDER is
   * retried by kafka-clients without end once a later sequence was acknowledged (KafkaLeaderKillProcessTest in CI:
   * "sent sequence 409; this shard expects 2992 (the batch is older than the last 5 batches it remembers)").
   */
  @Test
  void batchesInFlightAcrossALeaderChangeStayDuplicatesWhateverTheNewLeaderAppendsAfterThem() throws IOException {
    try (ShardLog old = ShardLog.open(tmp.resolve("old"), smallSegments(), flusher);
        ShardLog next = ShardLog.open(tmp.resolve("next"), smallSegments(), flusher)) {
      long[] offsets = new long[14];
      for (int i = 0; i < 8; i++) { // batches 3..7: the client's five in flight when leader epoch 1 ends
        offsets[i] = appendChecked(old, i, 1_000);
      }
      while (next.logEndOffset() < old.logEndOffset()) { // the new leader holds every record of the fenced one
        next.appendReplicated(old.read(next.logEndOffset(), 1 << 20).batches());
      }
      next.appendAsLeader(2, 1, 1_000, 1_000, ByteBuffer.allocate(0)); // its epoch marker
      for (int i = 8; i < 14; i++) { // the client's next batches, sent to the new leader meanwhile
        assertEquals(Outcome.APPEND, next.producers().check(stamp(0, 3 * i), 3).outcome(), "batch " + i);
        offsets[i] = next.appendAsLeader(2, 3, 1_000, 1_000, stamp(0, 3 * i), payload(i));
      }
      for (int i = 3; i < 14; i++) { // batch 8 was answered before batch 13 could go: the client never sends it again
        if (i != 8) {
          assertEquals(new Verdict(Outcome.DUPLICATE, offsets[i], ""), next.producers().check(stamp(0, 3 * i), 3),
              "a retry of batch " + i);
        }
      }
      assertEquals(Outcome.OUT_OF_ORDER, next.producers().check(stamp(0, 6), 3).outcome(),
          "batch 2 was answered before the leader changed: the client never sends it again");
      assertEquals(Outcome.APPEND, next.producers().check(stamp(0, 42), 3).outcome());
    }
  }

  @Test
  void aSequenceGapAndAStaleEpochAreRefusedAndANewEpochStartsAtZero() throws IOException {
    try (ShardLog log = ShardLog.open(tmp.resolve("log"), smallSegments(), flusher)) {
      appendChecked(log, 0, 1_000);
      Verdict gap = log.producers().check(stamp(0, 6), 3);
      assertEquals(new Verdict(Outcome.OUT_OF_ORDER, -1, "producer 42 (epoch 0) sent sequence 6; this shard expects 3"
          + " (a gap: earlier batches have not arrived)"), gap);
      Verdict sameStartOtherLength = log.producers().check(stamp(0, 0), 2);
      assertEquals(Outcome.OUT_OF_ORDER, sameStartOtherLength.outcome(), "a duplicate must match the whole batch");
      assertEquals(Outcome.OUT_OF_ORDER, log.producers().check(stamp(1, 5), 1).outcome());
      assertEquals(Outcome.APPEND, log.producers().check(stamp(1, 0), 1).outcome());
      log.appendAsLeader(1, 1, 1_000, 1_000, stamp(1, 0), payload(5));
      Verdict stale = log.producers().check(stamp(0, 3), 3);
      assertEquals(new Verdict(Outcome.STALE_EPOCH, -1, "producer 42 sent epoch 0 but this shard has stored epoch 1"),
          stale);
      assertEquals(Outcome.APPEND, log.producers().check(stamp(1, 1), 1).outcome());
      assertEquals(Outcome.APPEND, log.producers().check(new ProducerStamp(43, 0, 17), 1).outcome(),
          "an unknown producer starts at any sequence");
    }
  }

  @Test
  void aProducerIdleLongerThanTheExpiryIsForgotten() {
    long[] now = {10_000};
    ProducerStates states = new ProducerStates(() -> now[0]); // the replica's clock, not the batches' timestamps
    states.onBatch(stamp(0, 0), 0, 3, 1);
    now[0] = 50_000;
    states.onBatch(new ProducerStamp(7, 0, 0), 3, 1, 1);
    long idle = 30_000;
    assertEquals(0, states.expireIdle(40_000, idle), "idle exactly 30 s: kept");
    assertEquals(Outcome.DUPLICATE, states.check(stamp(0, 0), 3).outcome());
    assertEquals(1, states.expireIdle(40_001, idle));
    assertEquals(1, states.size());
    assertEquals(Outcome.APPEND, states.check(stamp(0, 0), 3).outcome(), "forgotten: its old batch is new again");
    assertEquals(Outcome.DUPLICATE, states.check(new ProducerStamp(7, 0, 0), 1).outcome());
  }

  @Test
  void replicatedBatchesCountAndATruncationForgetsTheBatchesItRemoves() throws IOException {
    try (ShardLog leader = ShardLog.open(tmp.resolve("leader"), smallSegments(), flusher);
        ShardLog follower = ShardLog.open(tmp.resolve("follower"), smallSegments(), flusher)) {
      for (int i = 0; i < 10; i++) { // crosses a roll: snapshots at 18 on both
        appendChecked(leader, i, 1_000);
      }
      follower.appendReplicated(leader.read(0, 1 << 20).batches());
      follower.appendReplicated(leader.read(18, 1 << 20).batches());
      assertEquals(30L, follower.logEndOffset());
      assertEquals(Outcome.DUPLICATE, follower.producers().check(stamp(0, 27), 3).outcome());
      assertEquals(new Verdict(Outcome.DUPLICATE, 27, ""), follower.producers().check(stamp(0, 27), 3));
      follower.truncateTo(21); // drops batches 7, 8, 9
      assertEquals(Outcome.DUPLICATE, follower.producers().check(stamp(0, 18), 3).outcome());
      assertEquals(Outcome.APPEND, follower.producers().check(stamp(0, 21), 3).outcome());
      assertEquals(Outcome.OUT_OF_ORDER, follower.producers().check(stamp(0, 27), 3).outcome());
      follower.truncateTo(15); // below the snapshot at 18: rebuilt from the log
      assertEquals(List.of(), ProducerSnapshot.list(follower.directory()), "the snapshot at 18 counted removed batches");
      assertEquals(Outcome.APPEND, follower.producers().check(stamp(0, 15), 3).outcome());
    }
  }

  @Test
  void openRebuildsTheStateFromTheNewestSnapshotAndTheLogAfterIt() throws IOException {
    Path dir = tmp.resolve("log");
    ShardLog log = ShardLog.open(dir, smallSegments(), flusher);
    for (int i = 0; i < 20; i++) { // six 164-byte batches per segment: rolls at 18, 36 and 54
      appendChecked(log, i, 1_000);
    }
    log.closeAsIfCrashed();
    assertEquals(List.of(36L, 54L), ProducerSnapshot.list(dir), "the newest two snapshots are kept");

    // The snapshot at 54 stands for every batch below it: damage in the sealed segment before it is not read when
    // open verifies only the unflushed tail, which proves the state came from the snapshot, not a full scan.
    flipByte(dir.resolve("00000000000000000036.log"), BATCH + 70);
    LogSettings unflushed = smallSegments().withVerifyOnOpen(LogSettings.VerifyOnOpen.UNFLUSHED);
    try (ShardLog reopened = ShardLog.open(dir, unflushed, flusher)) {
      for (int i = 15; i < 20; i++) {
        assertEquals(new Verdict(Outcome.DUPLICATE, 3L * i, ""), reopened.producers().check(stamp(0, 3 * i), 3));
      }
      assertEquals(Outcome.APPEND, reopened.producers().check(stamp(0, 60), 3).outcome());
    }

    // A torn newest snapshot: the older one and the log after it give the same state.
    try (RandomAccessFile f = new RandomAccessFile(ProducerSnapshot.fileFor(dir, 54).toFile(), "rw")) {
      f.setLength(f.length() - 3);
    }
    flipByte(dir.resolve("00000000000000000036.log"), BATCH + 70); // repaired: this time the log is read from 36
    try (ShardLog reopened = ShardLog.open(dir, unflushed, flusher)) {
      assertEquals(new Verdict(Outcome.DUPLICATE, 57, ""), reopened.producers().check(stamp(0, 57), 3));
      assertEquals(Outcome.APPEND, reopened.producers().check(stamp(0, 60), 3).outcome());
    }

    // No snapshot at all: the whole log is read.
    for (long at : ProducerSnapshot.list(dir)) {
      Files.delete(ProducerSnapshot.fileFor(dir, at));
    }
    try (ShardLog reopened = ShardLog.open(dir, smallSegments(), flusher)) {
      assertEquals(new Verdict(Outcome.DUPLICATE, 45, ""), reopened.producers().check(stamp(0, 45), 3));
      assertTrue(reopened.producers().size() == 1);
    }
  }

  static void flipByte(Path file, long position) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      f.seek(position);
      int b = f.read();
      f.seek(position);
      f.write(b ^ 0x40);
    }
  }
}
