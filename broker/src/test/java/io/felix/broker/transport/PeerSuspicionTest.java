package io.felix.broker.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The replication connection's evidence about peers, on a clock the test sets. */
class PeerSuspicionTest {

  private static final long CLOSE_GRACE = 300;
  private static final long SILENCE = 1000;

  private final AtomicLong now = new AtomicLong(50_000);
  private final PeerSuspicion suspicion =
      new PeerSuspicion(Duration.ofMillis(CLOSE_GRACE), Duration.ofMillis(SILENCE), now::get);

  @Test
  void aPeerWhoseConnectionEndedIsSuspectedAfterTheGraceUnlessHeardFromAgain() {
    suspicion.heard(2);
    suspicion.ended(2);
    now.addAndGet(CLOSE_GRACE - 1);
    assertEquals(Set.of(), suspicion.suspected(), "a live peer reconnects within the grace");

    now.addAndGet(1);
    assertEquals(Set.of(2), suspicion.suspected());

    // Refused reconnects keep it suspected from the first end on, not from the latest refusal.
    suspicion.ended(2);
    assertEquals(Set.of(2), suspicion.suspected());

    suspicion.heard(2);
    assertEquals(Set.of(), suspicion.suspected(), "any frame from the peer clears it");
  }

  @Test
  void aPeerSilentToAFetchForTheTimeoutIsSuspectedAndAnyFrameClearsIt() {
    suspicion.heard(1);
    now.addAndGet(5_000);
    assertEquals(Set.of(), suspicion.suspected(), "nothing asked, nothing heard: no evidence");

    suspicion.requested(1);
    now.addAndGet(600);
    suspicion.requested(1); // a resent fetch does not restart the wait
    now.addAndGet(SILENCE - 600 - 1);
    assertEquals(Set.of(), suspicion.suspected());

    now.addAndGet(1);
    assertEquals(Set.of(1), suspicion.suspected());

    suspicion.heard(1);
    assertEquals(Set.of(), suspicion.suspected());
    now.addAndGet(SILENCE * 3);
    assertEquals(Set.of(), suspicion.suspected(), "answered: nothing is awaited any more");
  }

  @Test
  void peersAreJudgedApartAndAPeerNeverSeenIsNotSuspected() {
    suspicion.heard(1);
    suspicion.heard(2);
    suspicion.ended(2);
    suspicion.requested(3);
    now.addAndGet(SILENCE);
    assertEquals(Set.of(2, 3), suspicion.suspected());
    assertEquals(Set.of(2), suspicion.closed(), "only a closed connection says the process is gone");
    assertEquals(Set.of(), new PeerSuspicion(Duration.ofMillis(CLOSE_GRACE), Duration.ofMillis(SILENCE),
        now::get).suspected());
  }
}
