package io.felix.loadgen.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The rounds of a run summed up per fault kind, and the run's verdict. */
public final class ChaosTable {

  /**
   * One fault kind's rounds.
   *
   * @param cachePuts cache puts acknowledged over the rounds
   * @param cacheKeysLost over the rounds, keys whose acknowledged cache put was not visible ({@link CacheFigures})
   * @param cacheKeysCorrupt over the rounds, keys showing a value nobody put for them
   * @param diverged over the rounds, shards whose replicas' logs differed below the commit offset
   * @param worstTimeToWritable the longest time to writable over the rounds, late ones included
   * @param notWritableInTime rounds in which some shard was not writable within the bound
   * @param failed rounds that failed for any reason (counts, bound, or a broker not coming back)
   */
  public record Row(FaultKind kind, int rounds, long acknowledged, long lost, long duplicated, long disordered,
      long cachePuts, long cacheKeysLost, long cacheKeysCorrupt, long diverged, Duration worstTimeToWritable,
      int notWritableInTime, int failed) {}

  private final List<RoundResult> rounds = new ArrayList<>();

  public void add(RoundResult round) {
    rounds.add(round);
  }

  public List<RoundResult> rounds() {
    return List.copyOf(rounds);
  }

  /** One row per fault kind that ran, in the enum's order. */
  public List<Row> rows() {
    Map<FaultKind, List<RoundResult>> byKind = new EnumMap<>(FaultKind.class);
    rounds.forEach(r -> byKind.computeIfAbsent(r.kind(), k -> new ArrayList<>()).add(r));
    List<Row> out = new ArrayList<>();
    byKind.forEach((kind, list) -> out.add(new Row(kind, list.size(),
        list.stream().mapToLong(RoundResult::acknowledged).sum(),
        list.stream().mapToLong(RoundResult::lost).sum(),
        list.stream().mapToLong(RoundResult::duplicated).sum(),
        list.stream().mapToLong(RoundResult::disordered).sum(),
        list.stream().mapToLong(r -> r.cache().acknowledged()).sum(),
        list.stream().mapToLong(r -> r.cache().keysLost()).sum(),
        list.stream().mapToLong(r -> r.cache().keysCorrupt()).sum(),
        list.stream().mapToLong(RoundResult::diverged).sum(),
        list.stream().map(RoundResult::timeToWritable)
            .max(Duration::compareTo).orElse(Duration.ZERO),
        (int) list.stream().filter(r -> !r.writableInTime()).count(),
        (int) list.stream().filter(r -> !r.ok()).count())));
    return out;
  }

  /** True when at least one round ran and none failed. */
  /** The chaos command's exit status: 0 when {@link #ok}, else 1. */
  public int exitStatus() {
    return ok() ? 0 : 1;
  }

  public boolean ok() {
    return !rounds.isEmpty() && rounds.stream().allMatch(RoundResult::ok);
  }

  /**
   * The table as text, a header line and one line per fault kind (the stream's figures, the cache's, then the
   * shards whose replicas diverged).
   */
  public String render() {
    StringBuilder b = new StringBuilder(String.format("%-20s %6s %12s %6s %10s %10s %10s %9s %12s %8s %17s %10s%n",
        "fault", "rounds", "acknowledged", "lost", "duplicated", "disordered", "cache puts", "keys lost",
        "keys corrupt", "diverged", "worst writable s", "failed"));
    for (Row r : rows()) {
      String worst = String.format("%.1f", r.worstTimeToWritable().toMillis() / 1000.0)
          + (r.notWritableInTime() > 0 ? " (" + r.notWritableInTime() + " late)" : "");
      b.append(String.format("%-20s %6d %12d %6d %10d %10d %10d %9d %12d %8d %17s %10d%n", r.kind().wireName(),
          r.rounds(), r.acknowledged(), r.lost(), r.duplicated(), r.disordered(), r.cachePuts(), r.cacheKeysLost(),
          r.cacheKeysCorrupt(), r.diverged(), worst, r.failed()));
    }
    return b.toString();
  }
}
