package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.log.LogDigest;
import io.felix.broker.wire.ControlMessage;

/**
 * One broker's answer to {@link ReplicaDirectory.DigestReplica}: the digest of its replica's log below an offset
 * ({@link LogDigest}), or why there is none.
 *
 * @param digest the digest, or the log's start and end when it is {@link Outcome#SHORT}; null for the other outcomes
 * @param problem why there is no digest ({@link Outcome#FAILED}, {@link Outcome#UNREADABLE}); empty otherwise
 */
public record ReplicaDigest(ShardId id, int brokerId, Outcome outcome, LogDigest digest, String problem)
    implements ControlMessage {

  public enum Outcome {
    /** {@link #digest} holds the digest. */
    DIGESTED,
    /** The log ends below the offset asked for; {@link #digest} holds its start and end. */
    SHORT,
    /** The broker has no replica of the shard. */
    NOT_HOSTED,
    /** The replica's log failed (see {@link FailedReplica}). */
    FAILED,
    /** Reading the log failed, or it changed under the reader (retention, closing); asking again may succeed. */
    UNREADABLE
  }

  public ReplicaDigest {
    if ((digest == null) != (outcome != Outcome.DIGESTED && outcome != Outcome.SHORT)) {
      throw new IllegalArgumentException("a " + outcome + " replica digest " + (digest == null ? "needs" : "has no")
          + " log digest");
    }
    problem = problem == null ? "" : problem;
  }

  /** The replica's digest, or its log's bounds when it is short. */
  public static ReplicaDigest of(ShardId id, int brokerId, LogDigest digest) {
    return new ReplicaDigest(id, brokerId, digest.isShort() ? Outcome.SHORT : Outcome.DIGESTED, digest, "");
  }

  public static ReplicaDigest without(ShardId id, int brokerId, Outcome outcome, String problem) {
    return new ReplicaDigest(id, brokerId, outcome, null, problem);
  }
}
