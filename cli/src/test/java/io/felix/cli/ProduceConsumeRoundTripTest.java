package io.felix.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.loadgen.RecordFormat;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.RecordBatch;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs produce and consume --verify through the real client and framing against {@link InMemoryShardPeer}. */
class ProduceConsumeRoundTripTest {
  @TempDir Path dir;
  private InMemoryShardPeer peer;
  private Path ledger;

  private record Outcome(int code, String out) {}

  private static Outcome run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Felix.run(args, InputStream.nullInputStream(), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    return new Outcome(code, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
  }

  @BeforeEach
  void produce() throws Exception {
    peer = new InMemoryShardPeer("s", 3);
    ledger = dir.resolve("produce.json");
    Outcome o = run("produce", "--bootstrap", peer.address(), "--stream", "s", "--records", "3000",
        "--producers", "3", "--record-size", "100", "--key-space", "50", "--batch-size", "2000", "--json", ledger.toString());
    assertEquals(0, o.code(), o.out());
    assertTrue(o.out().contains("summary: 3000 sent, 3000 acknowledged, 0 failed"), o.out());
    assertTrue(o.out().contains("latency ms: p50 "), o.out());
    for (int shard = 0; shard < 3; shard++) {
      assertTrue(peer.batches(shard).size() >= 5, "small batches: many per shard");
    }
  }

  @AfterEach
  void stop() throws Exception {
    peer.close();
  }

  private Outcome verify() {
    return run("consume", "--bootstrap", peer.address(), "--stream", "s", "--from-beginning", "--verify",
        "--expect", ledger.toString(), "--idle", "2s", "--json", dir.resolve("consume.json").toString());
  }

  @Test
  void everyAcknowledgedRecordIsReadBackOnceAndInOrder() throws Exception {
    Outcome o = verify();
    assertEquals(0, o.code(), o.out());
    assertTrue(o.out().contains("consume: read 3000 records"), o.out());
    for (int p = 0; p < 3; p++) {
      assertTrue(o.out().contains("producer " + p + ": 1000 read, 0 missing, 0 duplicated, 0 out of order, "
          + "0 unexpected, uncertain 0 present / 0 absent  OK"), o.out());
    }
    assertTrue(o.out().contains("verify: OK"), o.out());
    var report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(dir.resolve("consume.json").toFile());
    assertEquals(3000, report.get("records").asLong());
    assertTrue(report.get("ok").asBoolean());
    assertEquals(3, report.get("verify").get("producers").size());
  }

  @Test
  void withoutFromBeginningReadingStartsAtTheEnd() {
    Outcome o = run("consume", "--bootstrap", peer.address(), "--stream", "s", "--idle", "300ms");
    assertEquals(0, o.code(), o.out());
    assertTrue(o.out().contains("consume: read 0 records"), o.out());
  }

  /** How many records of each producer (0..2) the batch holds. */
  /** Each of the three producers' report line is in the output, and the run failed. */
  private static void assertEveryProducerThenFailed(Outcome o, IntFunction<String> producerLine) {
    for (int p = 0; p < 3; p++) {
      assertTrue(o.out().contains(producerLine.apply(p)), o.out());
    }
    assertTrue(o.out().contains("verify: FAILED"), o.out());
  }

  /** Verifies the run and expects it to fail (exit code 1). */
  private Outcome failedVerify() {
    Outcome o = verify();
    assertEquals(1, o.code(), o.out());
    return o;
  }

  /** Appends {@code batch} to the end of the shard's log, renumbering its offsets. */
  private void appendAndRenumber(int shard, RecordBatch batch) {
    peer.batches(shard).add(batch);
    peer.renumber(shard);
  }

  private static long[] perProducer(RecordBatch b) {
    long[] n = new long[3];
    for (var r : RecordLists.decode(b.getRecords()).getRecordsList()) {
      n[RecordFormat.decode(r.getValue().toByteArray()).producer()]++;
    }
    return n;
  }

  @Test
  void lostBatchIsReportedMissingPerProducerAndFailsTheRun() {
    List<RecordBatch> shard0 = peer.batches(0);
    RecordBatch lost = shard0.remove(shard0.size() - 1);
    long[] n = perProducer(lost);
    Outcome o = failedVerify();
    assertTrue(o.out().contains("consume: read " + (3000 - lost.getRecordCount()) + " records"), o.out());
    assertEveryProducerThenFailed(o, p -> "producer " + p + ": " + (1000 - n[p]) + " read, " + n[p] + " missing, "
        + "0 duplicated, 0 out of order");
  }

  @Test
  void duplicatedBatchIsReportedPerProducer() {
    RecordBatch copy = peer.batches(1).get(0);
    appendAndRenumber(1, copy);
    long[] n = perProducer(copy);
    Outcome o = failedVerify();
    assertEveryProducerThenFailed(o, p -> "producer " + p + ": " + (1000 + n[p]) + " read, 0 missing, " + n[p]
        + " duplicated, 0 out of order");
  }

  @Test
  void reorderedBatchesWithinAShardAreReportedOutOfOrder() {
    RecordBatch first = peer.batches(1).remove(0);
    appendAndRenumber(1, first);
    Outcome o = failedVerify();
    long[] n = perProducer(first);
    for (int p = 0; p < 3; p++) {
      if (n[p] > 0) {
        assertTrue(o.out().contains("producer " + p + ": 1000 read, 0 missing, 0 duplicated, " + n[p]
            + " out of order"), o.out());
      }
    }
  }

  @Test
  void flippedByteIsReportedCorrupt() {
    List<RecordBatch> shard2 = peer.batches(2);
    shard2.set(0, InMemoryShardPeer.flipValueByte(shard2.get(0), 0, 50));
    Outcome o = failedVerify();
    assertTrue(o.out().contains("verify: 3000 records, 1 corrupt, 0 not from the load generator"), o.out());
    assertTrue(o.out().contains("corrupt: shard 2 offset 0: checksum mismatch"), o.out());
  }
}
