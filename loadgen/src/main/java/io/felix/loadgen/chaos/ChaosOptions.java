package io.felix.loadgen.chaos;

import io.felix.loadgen.Flags;
import io.felix.loadgen.UsageException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Options of {@code chaos}.
 *
 * @param duration rounds start until this much time has passed (every listed fault runs at least once)
 * @param faults the fault kinds, run in turn (the order within each turn shuffled by the seed)
 * @param rate records per second over all producers, during every round
 * @param seed picks the victims and the order of the faults; printed, so a run can be repeated
 * @param writableWithin the bound on the time from a fault until every shard acknowledged a write again
 * @param dir where the local cluster lives (owned by the run: emptied first)
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
    Path dir) {

  static final Set<String> VALUED = Set.of("duration", "faults", "rate", "seed", "brokers", "shards", "producers",
      "writable-within", "dir");

  public static ChaosOptions parse(List<String> args) throws UsageException {
    Flags f = Flags.parse(args, VALUED, Set.of());
    return new ChaosOptions(
        f.duration("duration", Duration.ofMinutes(3)),
        FaultKind.parseList(f.string("faults", FaultKind.known())),
        f.longValue("rate", 200, 1, 100_000),
        f.longValue("seed", new SecureRandom().nextLong() & Long.MAX_VALUE, 0, Long.MAX_VALUE),
        f.intValue("brokers", 3, 3, 9),
        f.intValue("shards", 6, 1, 256),
        f.intValue("producers", 2, 1, 64),
        f.duration("writable-within", Duration.ofSeconds(30)),
        Path.of(f.string("dir", "data/chaos")));
  }
}
