package io.felix.broker.metrics;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The metrics of one broker, exposed in the Prometheus text format at {@code GET /metrics} on its admin port.
 *
 * <p>Every broker owns its own {@link PrometheusRegistry}: tests run several brokers in one JVM, and a shared
 * default registry would add their counters together (or refuse the second registration). The JVM and process
 * collectors are registered in each registry too, so each broker's page is complete on its own; in one JVM
 * they report the same process.
 *
 * <p>Callers use the small typed methods below; none of them throws on a value the broker produced, and all are
 * safe to call from any thread (the Prometheus client's data points are thread-safe). Code inside a broker
 * reaches its broker's instance with {@link #of(ActorSystem)}: a Pekko extension, one per ActorSystem, so no
 * constructor has to carry it and brokers sharing a JVM stay apart.
 */
public final class BrokerMetrics implements Extension {

  private static final ExtensionId<BrokerMetrics> ID = new ExtensionId<>() {
    @Override
    public BrokerMetrics createExtension(ActorSystem<?> system) {
      var config = system.settings().config();
      int id = config.hasPath("felix.broker.id") ? config.getInt("felix.broker.id") : -1;
      String zone = config.hasPath("felix.broker.zone") ? config.getString("felix.broker.zone") : "";
      return new BrokerMetrics(id, zone);
    }
  };

  /** The metrics of the broker running in {@code system} (created on first use from its felix.broker config). */
  public static BrokerMetrics of(ActorSystem<?> system) {
    return ID.apply(system);
  }

  /** Produce latency buckets in seconds: 0.25 ms to 10 s, where a quorum append on this hardware lives. */
  private static final double[] LATENCY_BUCKETS = {
    0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
  };

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();

  private final Counter recordsAppended = counter("felix_records_appended_total",
      "Records appended by this broker as leader, per stream", "stream");
  private final Counter bytesAppended = counter("felix_bytes_appended_total",
      "Record bytes (keys, values and headers) appended by this broker as leader, per stream", "stream");
  private final Histogram produceLatency = Histogram.builder()
      .name("felix_produce_latency_seconds")
      .help("Time from a produce request's arrival to its answer, per ack level and outcome")
      .labelNames("acks", "outcome")
      .classicOnly()
      .classicUpperBounds(LATENCY_BUCKETS)
      .register(registry);
  private final Gauge replicationLag = gauge("felix_replication_lag_records",
      "Records the follower still lacks behind this leader's log end", "stream", "shard", "follower");
  private final Gauge commitOffset = gauge("felix_commit_offset",
      "Commit offset (high watermark) of each shard replica on this broker", "stream", "shard");
  private final Gauge logStartOffset = gauge("felix_log_start_offset",
      "First offset each shard replica on this broker holds (retention moves it forward)", "stream", "shard");
  private final Gauge cacheKeys = gauge("felix_cache_keys",
      "Keys in the index of each cache shard replica on this broker (up to the commit offset it knows)", "stream",
      "shard");
  private final Counter forwardedBatches = counter("felix_forwarded_batches_total",
      "Plain-mode batches this broker forwarded to the shard's leader, per leader broker", "leader");
  private final Counter forwardedBytes = counter("felix_forwarded_bytes_total",
      "Plain-mode record bytes this broker forwarded to the shard's leader, per leader broker", "leader");
  private final Gauge leaders = gauge("felix_leaders",
      "Shards this broker leads per stream, from the assignment table it holds (summed over brokers, each shard "
          + "counts once)", "broker", "stream");
  private final Gauge assignmentVersion = gauge("felix_assignment_table_version",
      "Version of the assignment table this broker holds");
  private final Gauge movesInFlight = gauge("felix_moves_in_flight",
      "Shard moves started by the placement singleton and not yet finished");
  private final Counter movesFinished = counter("felix_moves_finished_total",
      "Shard moves that ended, by outcome (completed or aborted)", "outcome");
  private final Counter placementPasses = counter("felix_placement_passes_total",
      "Placement passes run by the singleton on this broker");
  private final Gauge underReplicatedShards = gauge("felix_under_replicated_shards",
      "Shards led by this broker with fewer replicas in sync than in their replica set, per stream", "stream");
  private final Gauge inSyncReplicas = gauge("felix_in_sync_replicas",
      "Replicas in sync (the leader included) of each shard this broker leads", "stream", "shard");
  private final Gauge groupCommitted = gauge("felix_group_committed_offset",
      "Committed offset of each consumer group this broker coordinates, per shard of the group's stream (-1: none)",
      "group", "stream", "shard");
  private final Gauge groupLag = gauge("felix_group_lag_records",
      "Records of each shard past the committed offset of each consumer group this broker coordinates (the shard's"
          + " commit offset minus the group's)", "group", "stream", "shard");
  private final int brokerId;
  /** The shards counted by {@link #underReplicatedShards}; guarded by this. */
  private final Set<ShardId> underReplicated = new HashSet<>();
  /**
   * How many of {@link #underReplicated} each stream has; guarded by this. Kept, not counted on each change: a broker
   * that starts leading 3,000 shards at once would count 3,000 times over all of them.
   */
  private final Map<String, Integer> underReplicatedPerStream = new HashMap<>();

  /** Builds the metrics of broker {@code brokerId}; the id is exported as {@code felix_broker_info}. */
  public BrokerMetrics(int brokerId, String zone) {
    this.brokerId = brokerId;
    gauge("felix_broker_info", "Identity of this broker (value is always 1)", "broker", "zone")
        .labelValues(Integer.toString(brokerId), zone == null ? "" : zone).set(1);
    // JvmMetrics includes the process collector (process_cpu_seconds_total and friends).
    JvmMetrics.builder().register(registry);
  }

  public void recordAppended(String stream, long records, long bytes) {
    recordsAppended.labelValues(stream).inc(records);
    bytesAppended.labelValues(stream).inc(bytes);
  }

  /** @param acks the request's ack level ({@code quorum}, {@code all}, {@code leader}); {@code ok} false for an error */
  public void produceAnswered(String acks, boolean ok, Duration latency) {
    produceLatency.labelValues(acks, ok ? "ok" : "error").observe(latency.toNanos() / 1e9);
  }

  public void replicationLag(ShardId shard, int follower, long records) {
    replicationLag.labelValues(shard.stream(), Integer.toString(shard.shard()), Integer.toString(follower))
        .set(records);
  }

  public void commitOffset(ShardId shard, long offset) {
    commitOffset.labelValues(shard.stream(), Integer.toString(shard.shard())).set(offset);
  }

  public void cacheKeys(ShardId shard, int keys) {
    cacheKeys.labelValues(shard.stream(), Integer.toString(shard.shard())).set(keys);
  }

  public void logStartOffset(ShardId shard, long offset) {
    logStartOffset.labelValues(shard.stream(), Integer.toString(shard.shard())).set(offset);
  }

  /**
   * How many of a shard's replicas are in sync, reported by its leader: the in-sync gauge, and the shard counted as
   * under-replicated while that is fewer than its replica set.
   */
  public void replicasInSync(ShardId shard, int inSync, int replicas) {
    inSyncReplicas.labelValues(shard.stream(), Integer.toString(shard.shard())).set(inSync);
    underReplicated(shard, inSync < replicas);
  }

  /** Whether a shard this broker leads has fewer replicas in sync than in its replica set. */
  public synchronized void underReplicated(ShardId shard, boolean under) {
    boolean changed = under ? underReplicated.add(shard) : underReplicated.remove(shard);
    if (changed) {
      int count = underReplicatedPerStream.merge(shard.stream(), under ? 1 : -1, Integer::sum);
      if (count == 0) {
        underReplicatedPerStream.remove(shard.stream());
      }
      underReplicatedShards.labelValues(shard.stream()).set(count);
    }
  }

  /** Drops the per-shard series of a shard this broker no longer leads, so stale lags do not linger. */
  public void shardReleased(ShardId shard) {
    underReplicated(shard, false);
    String shardNo = Integer.toString(shard.shard());
    replicationLag.removeIf(labels -> labels.get(0).equals(shard.stream()) && labels.get(1).equals(shardNo));
    commitOffset.remove(shard.stream(), shardNo);
    logStartOffset.remove(shard.stream(), shardNo);
    cacheKeys.remove(shard.stream(), shardNo);
    inSyncReplicas.remove(shard.stream(), shardNo);
  }

  /** Replaces the group series with these: the groups this broker coordinates now (others lose their series). */
  public synchronized void groupsCoordinated(List<? extends ConsumerGroupLag> lags) {
    groupCommitted.clear();
    groupLag.clear();
    for (ConsumerGroupLag l : lags) {
      String shard = Integer.toString(l.shard());
      groupCommitted.labelValues(l.group(), l.stream(), shard).set(l.committed());
      groupLag.labelValues(l.group(), l.stream(), shard).set(l.lag());
    }
  }

  public void batchForwarded(int leader, long bytes) {
    forwardedBatches.labelValues(Integer.toString(leader)).inc();
    forwardedBytes.labelValues(Integer.toString(leader)).inc(bytes);
  }

  /**
   * Sets the leaders gauge from a table: this broker's leaders per stream, every stream present even at 0, so
   * that the brokers' pages together read a lopsided stream as {@code 10, 1, 1}. Only this broker's own series:
   * every broker holds the same table, and a cluster-wide series on each page would be counted once per broker
   * by a sum over the scrape targets. Streams gone from the table lose their series.
   */
  public void assignmentsApplied(AssignmentTable table) {
    Map<String, Integer> counts = new TreeMap<>();
    table.streams().keySet().forEach(stream -> counts.put(stream, 0));
    for (ShardAssignment shard : table.shards().values()) {
      if (shard.leader() == brokerId) {
        counts.merge(shard.id().stream(), 1, Integer::sum);
      }
    }
    leaders.clear();
    counts.forEach((stream, n) -> leaders.labelValues(Integer.toString(brokerId), stream).set(n));
    assignmentVersion.set(table.version());
  }

  public void movesInFlight(int moves) {
    movesInFlight.set(moves);
  }

  public void moveFinished(boolean completed) {
    movesFinished.labelValues(completed ? "completed" : "aborted").inc();
  }

  public void placementPassRun() {
    placementPasses.inc();
  }

  /** The Prometheus text exposition (format 0.0.4) of every metric of this broker. */
  public String scrape() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(16 * 1024);
    try {
      writer.write(out, registry.scrape());
    } catch (IOException e) {
      throw new UncheckedIOException("writing metrics to memory failed", e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  /** The HTTP content type of {@link #scrape()}. */
  public String contentType() {
    return PrometheusTextFormatWriter.CONTENT_TYPE;
  }

  private Counter counter(String name, String help, String... labels) {
    return Counter.builder().name(name).help(help).labelNames(labels).register(registry);
  }

  private Gauge gauge(String name, String help, String... labels) {
    return Gauge.builder().name(name).help(help).labelNames(labels).register(registry);
  }
}
