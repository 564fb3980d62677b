package io.felix.loadgen.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Options of {@code chaos} (the felix command's {@code chaos} parses them).
 *
 * @param duration rounds start until this much time has passed (every listed fault runs at least once)
 * @param faults the fault kinds, run in turn (the order within each turn shuffled by the seed)
 * @param rate records per second over all producers, during every round
 * @param seed picks the victims and the order of the faults; printed, so a run can be repeated
 * @param writableWithin the bound on the time from a fault until every shard acknowledged a write again
 * @param dir where the local cluster lives (owned by the run: emptied first)
 * @param partitionHold how long a partition fault stays cut (at least until every shard is writable again)
 */
public record ChaosOptions(
    Duration duration,
    List<FaultKind> faults,
    long rate,
    long seed,
    int brokers,
    int shards,
    int producers,
    Duration writableWithin,
    Path dir,
    Duration partitionHold) {
}
