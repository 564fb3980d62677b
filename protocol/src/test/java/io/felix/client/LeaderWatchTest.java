package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** {@link LeaderWatch} on a clock the test moves. */
class LeaderWatchTest {
  private static final long MS = 1_000_000;
  private final AtomicLong clock = new AtomicLong(5_000 * MS);
  private final LeaderWatch watch = new LeaderWatch(Duration.ofSeconds(1), clock::get);
  private final ClusterView.Leader sentTo = new ClusterView.Leader(1, 4);

  @Test
  void aBatchWaitsUntilTheSilenceTimeoutThenIsOverdue() {
    long sentAt = clock.get();
    clock.addAndGet(999 * MS);
    assertEquals(LeaderWatch.Verdict.WAIT, watch.verdict(sentTo, sentAt, sentTo));
    clock.addAndGet(MS);
    assertEquals(LeaderWatch.Verdict.OVERDUE, watch.verdict(sentTo, sentAt, sentTo));
  }

  @Test
  void aNewerEpochResendsAtOnceWhereverItLeads() {
    long sentAt = clock.get();
    assertEquals(LeaderWatch.Verdict.RESEND, watch.verdict(sentTo, sentAt, new ClusterView.Leader(2, 5)));
    assertEquals(LeaderWatch.Verdict.RESEND, watch.verdict(sentTo, sentAt, new ClusterView.Leader(1, 5)),
        "the same broker at a newer epoch (it lost and regained the lead) is asked again");
  }

  @Test
  void anOlderOrUnknownLeaderNeverResends() {
    long sentAt = clock.get();
    assertEquals(LeaderWatch.Verdict.WAIT, watch.verdict(sentTo, sentAt, new ClusterView.Leader(2, 3)));
    assertEquals(LeaderWatch.Verdict.WAIT, watch.verdict(sentTo, sentAt, ClusterView.Leader.UNKNOWN));
    assertEquals(LeaderWatch.Verdict.WAIT, watch.verdict(sentTo, sentAt, new ClusterView.Leader(2, 4)),
        "another broker named at the same epoch is not ordered after the one sent to");
  }

  @Test
  void overdueBatchesReadMetadataAtMostOncePerHalfTimeout() {
    assertTrue(watch.refreshDue());
    clock.addAndGet(499 * MS);
    assertFalse(watch.refreshDue());
    clock.addAndGet(MS);
    assertTrue(watch.refreshDue());
    assertFalse(watch.refreshDue());
  }
}
