package io.felix.broker.log;

import java.util.UUID;

/**
 * What a replica promised and who it belongs to, kept in {@code replica.state} beside its log (see
 * {@link ReplicaMetadata}).
 *
 * @param incarnation the stream incarnation this log belongs to: a stream deleted and created again under the same
 *     name gets another one, so an old log is never taken for the new stream's
 * @param promisedEpoch the highest epoch this replica has accepted (followed a leader at), been fenced at or led:
 *     it never again follows, acks or leads below it, also after a restart
 * @param recovering true while a replica that started without its data (a wiped or lost directory) has not yet
 *     copied the leader's log up to the commit offset it learned: until then it holds no committed record it can
 *     vouch for, so it must not lead nor count towards a failover quorum
 */
public record ReplicaState(UUID incarnation, long promisedEpoch, boolean recovering) {

  public ReplicaState {
    if (incarnation == null) {
      throw new IllegalArgumentException("a replica state needs a stream incarnation");
    }
    if (promisedEpoch < -1) {
      throw new IllegalArgumentException("promised epoch must be >= -1, got " + promisedEpoch);
    }
  }

  /** This state with the promise raised to {@code epoch} (never lowered). */
  public ReplicaState promise(long epoch) {
    return epoch <= promisedEpoch ? this : new ReplicaState(incarnation, epoch, recovering);
  }

  public ReplicaState recovered() {
    return new ReplicaState(incarnation, promisedEpoch, false);
  }
}
