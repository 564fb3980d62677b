package io.felix.broker.shard;

import java.util.Locale;

/** What a broker's replica of a shard is doing, as it reports in its {@link ReplicaStatus}. */
public enum ReplicaRole {
  /** Leads the shard at its current epoch and takes appends. */
  LEADER,
  /** In the replica set, copying the leader's log. */
  FOLLOWER,
  /** A staged copy for a move: copies the leader's log but counts toward no quorum. */
  LEARNER,
  /** Fenced at an epoch newer than the one it leads or follows: takes and copies nothing until a newer table. */
  FENCED,
  /** The broker holds no replica of the shard. */
  NONE,
  /** Its log is corrupt: it serves nothing. */
  FAILED,
  /** Started on this broker, still opening its log: it cannot lead or answer yet, and is not failing. */
  STARTING;

  /** The name in JSON and logs: lower case ("leader", "fenced"). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
