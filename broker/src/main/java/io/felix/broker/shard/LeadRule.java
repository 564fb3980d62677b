package io.felix.broker.shard;

/**
 * The one rule for whether a replica may lead at an assigned epoch. An epoch is a grant the replica may use once:
 * it leads at epoch E only if E was granted after this replica actor opened its log, i.e. E is above every epoch it
 * had promised by then (persisted in {@code replica.state}), and E is not below what it has promised since (a fence
 * or a newer leader). A replica that restarts at an epoch it held before may have lost unflushed records that its
 * followers hold under that same epoch; leading again at it could fork the log without an epoch showing it.
 *
 * <p>A replica that opened with neither state nor log is new or lost its directory, and nothing on this broker
 * tells the two apart. It is recovering: a new shard's first leader must lead, so it leads provisionally, and
 * steps down as soon as a follower shows records its log lacks (then its directory was lost; see
 * {@link ShardLeader}). A recovering replica whose log is not empty copied part of a leader's log and never leads.
 *
 * <p>A refused leader stays a follower waiting for a newer epoch; the singleton's leader check finds that it does
 * not lead and starts a failover round, which grants a new epoch.
 */
final class LeadRule {

  enum Verdict {
    LEAD,
    /** Lead, but step down when a follower holds records this log lacks (see the class comment). */
    LEAD_PROVISIONALLY,
    /** The epoch was granted before this actor started: it was used (or lost) by the previous one. */
    EPOCH_FROM_BEFORE_START,
    /** The replica has promised a newer epoch since (fenced, or followed a newer leader). */
    FENCED,
    /** The replica is copying a leader's log after it lost its own and has not caught up yet. */
    RECOVERING;

    /** What a replica refused by this verdict tells the singleton (it is meaningless for LEAD verdicts). */
    NotServingReason notServingReason() {
      return switch (this) {
        case EPOCH_FROM_BEFORE_START -> NotServingReason.EPOCH_HELD_BEFORE_RESTART;
        case RECOVERING, LEAD_PROVISIONALLY -> NotServingReason.RECOVERING;
        case FENCED, LEAD -> NotServingReason.FENCED_ABOVE_EPOCH;
      };
    }
  }

  private LeadRule() {}

  /**
   * @param epoch the epoch the assignment has this replica lead at
   * @param promisedAtOpen the highest epoch persisted when the replica actor opened its log (-1 for none)
   * @param promised the highest epoch persisted now
   * @param recovering whether the replica is recovering (opened with neither state nor log, not caught up yet)
   * @param logEmpty whether its log holds nothing
   */
  static Verdict decide(long epoch, long promisedAtOpen, long promised, boolean recovering, boolean logEmpty) {
    if (epoch <= promisedAtOpen) {
      return Verdict.EPOCH_FROM_BEFORE_START;
    }
    if (epoch < promised) {
      return Verdict.FENCED;
    }
    if (recovering) {
      return logEmpty ? Verdict.LEAD_PROVISIONALLY : Verdict.RECOVERING;
    }
    return Verdict.LEAD;
  }

  /** Why a replica will not lead at {@code epoch}, for its log. */
  static String reason(Verdict verdict, long epoch, long promisedAtOpen, long promised) {
    return switch (verdict) {
      case LEAD, LEAD_PROVISIONALLY -> "it may";
      case EPOCH_FROM_BEFORE_START -> "epoch " + epoch + " was granted before this replica started (it had promised"
          + " epoch " + promisedAtOpen + " then), so its previous run may have used it";
      case FENCED -> "it has promised epoch " + promised + " since";
      case RECOVERING -> "it lost its data and has not yet copied the leader's log up to the commit offset";
    };
  }
}
