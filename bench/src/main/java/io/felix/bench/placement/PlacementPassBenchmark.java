package io.felix.bench.placement;

import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Plan;
import io.felix.placement.PlacementSettings;
import io.felix.placement.Planner;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One planner pass ({@link Planner#plan}) on big clusters, streams of 100 shards, RF 3: 10,000 shards on 100
 * brokers and 100,000 shards on 500 brokers, without zones and in three zones (see {@link SkewedLayout}).
 *
 * <ul>
 *   <li>{@link #placeEmptyCluster}: every shard of an empty cluster placed in one pass;
 *   <li>{@link #onePassDefaultSettings}: the skewed layout with the default settings, i.e. building every tally
 *       from the snapshot and planning the one allowed move: what the control plane pays each time it plans;
 *   <li>{@link #onePassNoMoveLimit}: the skewed layout with no move limit, planning every move in that one pass.
 * </ul>
 *
 * The planner is single-threaded: on a machine shared with other work, compare with {@code -prof gc} or several
 * forks rather than trusting one run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class PlacementPassBenchmark {

  /** BROKERS:STREAMS, each stream of 100 shards. */
  @Param({"100:100", "500:1000"})
  public String brokersAndStreams;

  @Param({"none", "three"})
  public String zones;

  private ClusterSnapshot empty;
  private ClusterSnapshot skewed;
  private ClusterSnapshot unlimited;

  @Setup
  public void buildLayouts() {
    String[] sizes = brokersAndStreams.split(":");
    ClusterSnapshot layout = SkewedLayout.of(Integer.parseInt(sizes[0]), Integer.parseInt(sizes[1]), 100, 3, 7);
    skewed = switch (zones) {
      case "none" -> layout;
      case "three" -> SkewedLayout.inThreeZones(layout);
      default -> throw new IllegalArgumentException("zones must be none or three, got " + zones);
    };
    empty = skewed.withAssignments(List.of());
    unlimited = skewed.withSettings(PlacementSettings.DEFAULT.withMaxConcurrentMoves(Integer.MAX_VALUE));
  }

  @Benchmark
  public Plan placeEmptyCluster() {
    return Planner.plan(empty);
  }

  @Benchmark
  public Plan onePassDefaultSettings() {
    return Planner.plan(skewed);
  }

  @Benchmark
  public Plan onePassNoMoveLimit() {
    return Planner.plan(unlimited);
  }
}
