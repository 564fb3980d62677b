package io.felix.client;

import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * Decides what becomes of a produce batch in flight whose leader may have stopped answering. A leader that is
 * stopped (SIGSTOP), cut off or overloaded keeps its TCP connection open and answers nothing, so neither a
 * closed connection nor NOT_LEADER tells the client: without this it waits out requestTimeout (30 s) while the
 * cluster fails the shard over within seconds.
 *
 * <p>The rule: once the client knows a newer leader epoch for the batch's shard than the one it sent the batch
 * under (a metadata answer or another batch's NOT_LEADER hint), the batch is re-sent there ({@link Verdict#RESEND}):
 * epochs only grow, and the idempotent producer's numbers make a batch the old leader did store an answered
 * duplicate at the new one. A batch unanswered for longer than the silence timeout is {@link Verdict#OVERDUE}:
 * the client re-reads metadata, at most once per half of the timeout ({@link #refreshDue}), until a newer epoch
 * shows up or the answer comes. A slow but live leader costs only those metadata reads.
 */
final class LeaderWatch {
  /** What to do about one batch in flight. */
  enum Verdict {
    /** Its leader is current and it is not overdue. */
    WAIT,
    /** Unanswered past the silence timeout under the newest epoch known: re-read metadata. */
    OVERDUE,
    /** A newer leader epoch is known for its shard: re-send it there. */
    RESEND
  }

  private final long silenceNanos;
  private final long refreshEveryNanos;
  private final LongSupplier nanoClock;
  private long lastRefreshNanos;
  private boolean refreshed;

  LeaderWatch(Duration silenceTimeout, LongSupplier nanoClock) {
    this.silenceNanos = silenceTimeout.toNanos();
    this.refreshEveryNanos = Math.max(1, silenceNanos / 2);
    this.nanoClock = nanoClock;
  }

  /**
   * @param sentTo the leader (broker and epoch) the batch was sent to
   * @param sentAtNanos when, on this watch's clock
   * @param known the shard's leader as the client knows it now
   */
  Verdict verdict(ClusterView.Leader sentTo, long sentAtNanos, ClusterView.Leader known) {
    if (known.broker() >= 0 && known.epoch() > sentTo.epoch()) {
      return Verdict.RESEND;
    }
    return nanoClock.getAsLong() - sentAtNanos >= silenceNanos ? Verdict.OVERDUE : Verdict.WAIT;
  }

  /** Whether an overdue batch may start a metadata read now; if so, the next may only half a timeout later. */
  synchronized boolean refreshDue() {
    long now = nanoClock.getAsLong();
    if (refreshed && now - lastRefreshNanos < refreshEveryNanos) {
      return false;
    }
    refreshed = true;
    lastRefreshNanos = now;
    return true;
  }

  long now() {
    return nanoClock.getAsLong();
  }
}
