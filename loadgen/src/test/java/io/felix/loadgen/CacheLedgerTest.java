package io.felix.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.client.FelixCache;
import io.felix.loadgen.CacheLedger.Finding;
import io.felix.loadgen.CacheLedger.Outcome;
import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The cache ledger's judgement of a read, for {@code felix perf cache --verify} and the chaos rounds' cache check. */
class CacheLedgerTest {
  private static final long RUN = 77;

  private final CacheLedger ledger = new CacheLedger(3, RUN, CacheLedger.Writers.ONE);

  private static Optional<FelixCache.Entry> read(CacheLedger.Put put, long offset) {
    return read(put.value(), offset);
  }

  private static Optional<FelixCache.Entry> read(byte[] value, long offset) {
    return Optional.of(new FelixCache.Entry(CacheLedger.keyBytes(0), value, 0, offset, 0));
  }

  private Finding check(int key, Optional<FelixCache.Entry> entry) {
    return ledger.check(key, ledger.floor(key), entry);
  }

  @Test
  void theLatestAcknowledgedPutIsCurrentAndAnOlderAcknowledgedOneIsLost() {
    CacheLedger.Put first = ledger.attempt(0, 0);
    CacheLedger.Put second = ledger.attempt(0, 0);
    ledger.acknowledged(first, 10);
    ledger.acknowledged(second, 12);

    assertEquals(12, ledger.floor(0));
    assertEquals(Outcome.CURRENT, check(0, read(second, 12)).outcome());
    assertEquals(new Finding(Outcome.LOST, "k0 read put 0 at offset 10, older than the put acknowledged at offset 12"),
        check(0, read(first, 10)));
  }

  @Test
  void aPutAttemptedAfterTheLastAcknowledgedOneIsAcceptedWhetherItFailedOrIsInFlight() {
    CacheLedger.Put acked = ledger.attempt(0, 0);
    CacheLedger.Put failed = ledger.attempt(0, 0); // timed out: may or may not have been applied
    CacheLedger.Put inFlight = ledger.attempt(0, 0);
    ledger.acknowledged(acked, 10);

    assertEquals(Finding.CURRENT, check(0, read(acked, 10)));
    assertEquals(Finding.CURRENT, check(0, read(failed, 11)));
    assertEquals(Finding.CURRENT, check(0, read(inFlight, 13)));
  }

  @Test
  void anAbsentKeyIsLostOnlyOnceAPutOfItWasAcknowledged() {
    ledger.attempt(1, 0); // failed: absent is allowed
    CacheLedger.Put acked = ledger.attempt(0, 0);
    ledger.acknowledged(acked, 4);

    assertEquals(Finding.CURRENT, check(1, Optional.empty()));
    assertEquals(Finding.CURRENT, check(2, Optional.empty()));
    assertEquals(new Finding(Outcome.LOST, "k0 absent, after the put at offset 4 was acknowledged"),
        check(0, Optional.empty()));
  }

  @Test
  void oneWritersOlderPutAfterItsAcknowledgedOneIsLostButManyWritersMayRace() {
    CacheLedger.Put older = ledger.attempt(0, 0); // failed, then applied after the next one: out of order
    CacheLedger.Put acked = ledger.attempt(0, 0);
    ledger.acknowledged(acked, 10);
    assertEquals(new Finding(Outcome.LOST, "k0 read put 0 at offset 11, issued before put 1 acknowledged at offset 10"),
        check(0, read(older, 11)));

    CacheLedger racing = new CacheLedger(1, RUN, CacheLedger.Writers.MANY);
    CacheLedger.Put a = racing.attempt(0, 0);
    CacheLedger.Put b = racing.attempt(0, 0);
    racing.acknowledged(b, 10);
    racing.acknowledged(a, 11); // two writers: a reached the log after b
    assertEquals(11, racing.floor(0));
    assertEquals(Finding.CURRENT, racing.check(0, racing.floor(0), read(a, 11)));
    assertEquals(Outcome.LOST, racing.check(0, racing.floor(0), read(b, 10)).outcome());
  }

  @Test
  void aValueNobodyWroteOrAnotherPutAtTheAcknowledgedOffsetIsCorrupt() {
    CacheLedger.Put acked = ledger.attempt(0, 0);
    CacheLedger.Put later = ledger.attempt(0, 0);
    ledger.acknowledged(acked, 10);

    byte[] neverIssued = ByteBuffer.allocate(CacheLedger.VALUE_HEADER).putInt(0).putLong(RUN).putLong(9).array();
    assertEquals(new Finding(Outcome.CORRUPT, "k0 read a value nobody wrote (key 0, put id 9) at offset 12"),
        check(0, read(neverIssued, 12)));
    assertEquals(new Finding(Outcome.CORRUPT, "k2 read a value nobody wrote (key 0, put id 0) at offset 12"),
        check(2, read(acked, 12)));
    assertEquals(new Finding(Outcome.CORRUPT, "k0 read a value nobody wrote (key -1, put id -1) at offset 3"),
        check(0, read(new byte[] {1, 2, 3}, 3)));
    assertEquals(new Finding(Outcome.CORRUPT, "k0 read put 1 at offset 10, where put 0 was acknowledged"),
        check(0, read(later, 10)));
  }

  @Test
  void anEarlierRunsEntryIsAllowedUntilThisRunAcknowledgedAPutOfTheKey() {
    CacheLedger earlier = new CacheLedger(3, RUN + 1, CacheLedger.Writers.ONE);
    CacheLedger.Put old = earlier.attempt(0, 0);
    assertEquals(Finding.CURRENT, check(0, read(old, 5)));

    ledger.acknowledged(ledger.attempt(0, 0), 8);
    assertEquals(new Finding(Outcome.LOST, "k0 read an earlier run's put at offset 5, older than the put acknowledged"
        + " at offset 8"), check(0, read(old, 5)));
  }

  @Test
  void aValueIsPaddedToTheAskedSizeAndNamesItsKeyRunAndPut() {
    ledger.attempt(2, 0);
    CacheLedger.Put put = ledger.attempt(2, 64);
    ByteBuffer value = ByteBuffer.wrap(put.value());
    assertEquals(64, put.value().length);
    assertEquals(2, value.getInt());
    assertEquals(RUN, value.getLong());
    assertEquals(1, value.getLong());
    assertEquals(1, put.id());
  }
}
