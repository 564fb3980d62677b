package io.felix.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.FelixException;
import io.felix.protocol.client.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifierTest {
  private static final long RUN = 77;

  private static byte[] rec(int producer, long seq) {
    return RecordFormat.encode(RUN, producer, seq, 40);
  }

  private static Summary ledger(Summary.ProducerResult... producers) {
    return new Summary("s", RUN, "cluster", "quorum", 40, producers.length, 1.0, 0, 0, 0, 0, 0, 0, 0,
        Map.of(), List.of(producers));
  }

  @Test
  void completeInOrderStreamIsOk() {
    Verifier v = new Verifier();
    for (int seq = 0; seq < 5; seq++) {
      v.accept(seq % 2, seq, rec(0, seq));
    }
    Verifier.Report r = v.report(null);
    assertTrue(r.ok());
    assertEquals(List.of(new Verifier.ProducerReport(RUN, 0, 5, 0, 0, 0, List.of(), 0, 0, 0)), r.producers());
  }

  @Test
  void gapDuplicateReorderAndCorruptionAreEachCounted() {
    Verifier v = new Verifier();
    v.accept(0, 0, rec(0, 0));
    v.accept(0, 1, rec(0, 2)); // 1 is missing
    v.accept(0, 2, rec(0, 2)); // duplicate
    v.accept(1, 0, rec(0, 5));
    v.accept(1, 1, rec(0, 4)); // out of order within shard 1
    byte[] bad = rec(0, 3);
    bad[30] ^= 1;
    v.accept(1, 2, bad);
    v.accept(1, 3, "someone else's record".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Verifier.Report r = v.report(null);
    assertEquals(1, r.foreign());
    assertFalse(r.ok());
    assertEquals(1, r.corrupt());
    assertEquals(List.of("shard 1 offset 2: checksum mismatch: stored "), List.of(r.corruptSample().get(0)
        .substring(0, "shard 1 offset 2: checksum mismatch: stored ".length())));
    Verifier.ProducerReport p = r.producers().get(0);
    assertEquals(5, p.read());
    assertEquals(1, p.duplicated());
    assertEquals(1, p.outOfOrder());
    assertEquals(2, p.missing(), "1 and 3 (3 was corrupt)");
    assertEquals(List.of(1L, 3L), p.missingSample());
  }

  @Test
  void withTheLedgerOnlyAcknowledgedRecordsCanBeMissing() {
    // producer 0 sent 0..5: 0-2 and 5 acknowledged, 3 uncertain, 4 certainly not stored
    Summary expected = ledger(new Summary.ProducerResult(0, 6, 4, List.of(new long[] {0, 2}, new long[] {5, 5}),
        List.of(3L), List.of(4L)));
    Verifier v = new Verifier();
    v.accept(0, 0, rec(0, 0));
    v.accept(0, 1, rec(0, 1));
    v.accept(0, 2, rec(0, 3)); // uncertain, present: fine
    v.accept(0, 3, rec(0, 5));
    v.accept(0, 4, RecordFormat.encode(RUN + 1, 0, 0, 40)); // another run: ignored
    Verifier.Report r = v.report(expected);
    assertEquals(1, r.otherRuns());
    Verifier.ProducerReport p = r.producers().get(0);
    assertEquals(1, p.missing());
    assertEquals(List.of(2L), p.missingSample());
    assertEquals(0, p.unexpected());
    assertEquals(1, p.uncertainPresent());
    assertEquals(0, p.uncertainAbsent());
    assertFalse(r.ok());
  }

  @Test
  void recordTheProducerWasToldWasNotStoredIsUnexpected() {
    Summary expected = ledger(new Summary.ProducerResult(0, 2, 1, List.of(new long[] {0, 0}), List.of(), List.of(1L)));
    Verifier v = new Verifier();
    v.accept(0, 0, rec(0, 0));
    v.accept(0, 1, rec(0, 1));
    Verifier.ProducerReport p = v.report(expected).producers().get(0);
    assertEquals(1, p.unexpected());
    assertEquals(0, p.missing());
    assertFalse(p.ok());
  }

  @Test
  void ledgerWrittenByProduceReadsBackForConsume(@TempDir Path dir) throws Exception {
    ProducerLedger l = new ProducerLedger(0);
    for (long s = 0; s < 6; s++) {
      l.sent(s);
    }
    for (long s : List.of(0L, 1L, 2L, 5L)) {
      l.acked(s);
    }
    l.failed(3, new FelixException(FelixException.Kind.BROKER_ERROR, ErrorCode.TIMEOUT, "t", true, false));
    l.failed(4, FelixException.clientClosed("closed"));
    Summary s = ledger(l.result());
    Path file = dir.resolve("p.json");
    s.write(file);
    String json = Files.readString(file);
    assertTrue(json.contains("\"acked\" : [ [ 0, 2 ], [ 5, 5 ] ]"), json);
    assertTrue(json.contains("\"not_appended\" : [ 4 ]"), json);
    Summary back = Summary.read(file);
    Summary.ProducerResult p = back.producers().get(0);
    assertEquals(6, p.sent());
    assertEquals(4, p.ackedCount());
    assertEquals(List.of(3L), p.uncertain());
    BitSet acked = SequenceSet.fromRanges(p.acked());
    assertEquals("{0, 1, 2, 5}", acked.toString());
  }
}
