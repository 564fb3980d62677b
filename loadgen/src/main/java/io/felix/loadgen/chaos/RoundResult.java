package io.felix.loadgen.chaos;

import java.time.Duration;

/**
 * What one round found.
 *
 * @param acknowledged records the round's producers had acknowledged
 * @param lost acknowledged records not read back
 * @param duplicated records read back more than once
 * @param disordered records out of order within a shard, read back though never sent or certainly not stored, or
 *     corrupt
 * @param timeToWritable from the end of the fault's action until every shard acknowledged a write again (as long as
 *     the round waited when some shard never did)
 * @param writableInTime whether every shard did so within the bound ({@code --writable-within})
 * @param cache the cache writer's puts acknowledged and the keys its read-back found lost or corrupt
 * @param diverged shards of the stream and the cache whose replicas' logs differ below the commit offset once the
 *     round is over ({@link ReplicaDigestCheck})
 * @param failure what went wrong outside the counts (a broker that did not come back, the read failing), or null
 */
public record RoundResult(
    FaultKind kind,
    String what,
    long acknowledged,
    long lost,
    long duplicated,
    long disordered,
    Duration timeToWritable,
    boolean writableInTime,
    CacheFigures cache,
    int diverged,
    String failure) {

  public boolean ok() {
    return lost == 0 && duplicated == 0 && disordered == 0 && writableInTime && cache.ok() && diverged == 0
        && failure == null;
  }

  /** This round with the cache's figures, and what else went wrong checking the cache (null: nothing). */
  RoundResult withCache(CacheFigures figures, String cacheFailure) {
    return new RoundResult(kind, what, acknowledged, lost, duplicated, disordered, timeToWritable, writableInTime,
        figures, diverged, ChaosRound.join(failure, cacheFailure));
  }

  /** This round with the stream's figures, and what else went wrong reading it back (null: nothing). */
  RoundResult withStream(long acknowledged, long lost, long duplicated, long disordered, String streamFailure) {
    return new RoundResult(kind, what, acknowledged, lost, duplicated, disordered, timeToWritable, writableInTime,
        cache, diverged, ChaosRound.join(failure, streamFailure));
  }

  /** This round with the shards whose replicas diverged, and what the replica check found wrong (null: nothing). */
  RoundResult withReplicas(int divergedShards, String replicaFailure) {
    return new RoundResult(kind, what, acknowledged, lost, duplicated, disordered, timeToWritable, writableInTime,
        cache, divergedShards, ChaosRound.join(failure, replicaFailure));
  }

  /** One line for the run's log. */
  String line(int round) {
    return String.format("round %d %s: %s; all shards writable %s; %d acknowledged, %d lost, %d duplicated,"
            + " %d disordered; cache %d puts acknowledged, %d keys lost, %d corrupt; %d shards diverged%s  %s",
        round, kind.wireName(), what,
        String.format("after %.1f s%s", timeToWritable.toMillis() / 1000.0, writableInTime ? "" : " (LATE)"),
        acknowledged, lost, duplicated, disordered, cache.acknowledged(), cache.keysLost(), cache.keysCorrupt(),
        diverged, failure == null ? "" : "; " + failure, ok() ? "OK" : "FAILED");
  }
}
