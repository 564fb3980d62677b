package io.felix.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class BrokerMetricsTest {

  /** The sample lines of the exposition whose metric name is {@code name} (labels or not), in their order. */
  private static List<String> samples(BrokerMetrics metrics, String name) {
    return metrics.scrape().lines()
        .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
        .collect(Collectors.toList());
  }

  private static Map<Integer, BrokerEndpoint> threeBrokers() {
    return Map.of(
        0, new BrokerEndpoint(0, "127.0.0.1", 9000, 9100, 9200),
        1, new BrokerEndpoint(1, "127.0.0.1", 9001, 9101, 9201),
        2, new BrokerEndpoint(2, "127.0.0.1", 9002, 9102, 9202));
  }

  /** A table in which stream {@code name} has its shards' leaders as listed, in shard order. */
  private static void addStream(TreeMap<ShardId, ShardAssignment> shards, String name, int... leaderOfShard) {
    for (int i = 0; i < leaderOfShard.length; i++) {
      ShardId id = new ShardId(name, i);
      shards.put(id, new ShardAssignment(id, List.of(0, 1, 2), List.of(), leaderOfShard[i], 1));
    }
  }

  @Test
  void recordsAndBytesAppendedAddUpPerStream() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    metrics.recordAppended("orders", 3, 300);
    metrics.recordAppended("orders", 2, 2048);
    metrics.recordAppended("clicks", 1, 10);

    assertEquals(List.of(
        "felix_records_appended_total{stream=\"clicks\"} 1.0",
        "felix_records_appended_total{stream=\"orders\"} 5.0"), samples(metrics, "felix_records_appended_total"));
    assertEquals(List.of(
        "felix_bytes_appended_total{stream=\"clicks\"} 10.0",
        "felix_bytes_appended_total{stream=\"orders\"} 2348.0"), samples(metrics, "felix_bytes_appended_total"));
  }

  @Test
  void underReplicatedShardsAreCountedPerStreamAsTheyComeAndGo() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    metrics.replicasInSync(new ShardId("orders", 0), 1, 3);
    metrics.replicasInSync(new ShardId("orders", 1), 2, 3);
    metrics.replicasInSync(new ShardId("orders", 1), 2, 3); // told twice: counted once
    metrics.replicasInSync(new ShardId("clicks", 0), 2, 3);
    metrics.replicasInSync(new ShardId("orders", 2), 3, 3); // in sync: not counted
    assertEquals(List.of(
        "felix_under_replicated_shards{stream=\"clicks\"} 1.0",
        "felix_under_replicated_shards{stream=\"orders\"} 2.0"), samples(metrics, "felix_under_replicated_shards"));

    metrics.replicasInSync(new ShardId("orders", 0), 3, 3);
    metrics.shardReleased(new ShardId("clicks", 0));
    assertEquals(List.of(
        "felix_under_replicated_shards{stream=\"clicks\"} 0.0",
        "felix_under_replicated_shards{stream=\"orders\"} 1.0"), samples(metrics, "felix_under_replicated_shards"));
  }

  @Test
  void produceLatencyIsCountedInTheFirstBucketThatHoldsIt() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    metrics.produceAnswered("quorum", true, Duration.ofMillis(3));
    metrics.produceAnswered("quorum", true, Duration.ofMillis(40));
    metrics.produceAnswered("leader", false, Duration.ofSeconds(11));

    List<String> quorum = samples(metrics, "felix_produce_latency_seconds_bucket").stream()
        .filter(l -> l.contains("acks=\"quorum\"")).collect(Collectors.toList());
    assertEquals("felix_produce_latency_seconds_bucket{acks=\"quorum\",outcome=\"ok\",le=\"0.0025\"} 0", quorum.get(3));
    assertEquals("felix_produce_latency_seconds_bucket{acks=\"quorum\",outcome=\"ok\",le=\"0.005\"} 1", quorum.get(4));
    assertEquals("felix_produce_latency_seconds_bucket{acks=\"quorum\",outcome=\"ok\",le=\"0.05\"} 2", quorum.get(7));
    assertEquals("felix_produce_latency_seconds_bucket{acks=\"quorum\",outcome=\"ok\",le=\"+Inf\"} 2",
        quorum.get(quorum.size() - 1));
    assertEquals(List.of(
        "felix_produce_latency_seconds_count{acks=\"leader\",outcome=\"error\"} 1",
        "felix_produce_latency_seconds_count{acks=\"quorum\",outcome=\"ok\"} 2"),
        samples(metrics, "felix_produce_latency_seconds_count"));
    List<String> sums = samples(metrics, "felix_produce_latency_seconds_sum");
    assertEquals("felix_produce_latency_seconds_sum{acks=\"leader\",outcome=\"error\"} 11.0", sums.get(0));
    String quorumSum = "felix_produce_latency_seconds_sum{acks=\"quorum\",outcome=\"ok\"} ";
    assertTrue(sums.get(1).startsWith(quorumSum), sums.get(1));
    assertEquals(0.043, Double.parseDouble(sums.get(1).substring(quorumSum.length())), 1e-12);
  }

  @Test
  void leadersGaugeShowsThisBrokersLeadersOfEveryStreamAndNoOtherBrokers() {
    BrokerMetrics metrics = new BrokerMetrics(2, "c");
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    addStream(shards, "perf-quorum", 2, 2, 2, 2, 2, 0, 2, 2, 1, 2, 2, 2);
    addStream(shards, "audit", 0, 0);
    metrics.assignmentsApplied(new AssignmentTable(7, threeBrokers(),
        Map.of("perf-quorum", 12, "audit", 2), shards));

    // Broker 2's page: its own 10 of the lopsided stream and its 0 of audit; brokers 0 and 1 report theirs.
    assertEquals(List.of(
        "felix_leaders{broker=\"2\",stream=\"audit\"} 0.0",
        "felix_leaders{broker=\"2\",stream=\"perf-quorum\"} 10.0"), samples(metrics, "felix_leaders"));
    assertEquals(List.of("felix_assignment_table_version 7.0"), samples(metrics, "felix_assignment_table_version"));
  }

  @Test
  void aDeletedStreamLosesItsLeaderSeriesWhenTheNextTableArrives() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    addStream(shards, "old", 0);
    metrics.assignmentsApplied(new AssignmentTable(1, threeBrokers(), Map.of("old", 1), shards));
    TreeMap<ShardId, ShardAssignment> next = new TreeMap<>();
    addStream(next, "new", 1, ShardAssignment.NO_LEADER);
    metrics.assignmentsApplied(new AssignmentTable(2, threeBrokers(), Map.of("new", 2), next));

    assertEquals(List.of("felix_leaders{broker=\"0\",stream=\"new\"} 0.0"), samples(metrics, "felix_leaders"));
  }

  @Test
  void replicationLagAndCommitOffsetArePerShardAndGoWhenTheShardIsReleased() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    ShardId s0 = new ShardId("orders", 0);
    ShardId s1 = new ShardId("orders", 1);
    metrics.replicationLag(s0, 1, 120);
    metrics.replicationLag(s0, 2, 0);
    metrics.replicationLag(s1, 2, 5);
    metrics.commitOffset(s0, 4000);
    metrics.commitOffset(s1, 17);
    metrics.shardReleased(s0);

    assertEquals(List.of("felix_replication_lag_records{follower=\"2\",shard=\"1\",stream=\"orders\"} 5.0"),
        samples(metrics, "felix_replication_lag_records"));
    assertEquals(List.of("felix_commit_offset{shard=\"1\",stream=\"orders\"} 17.0"),
        samples(metrics, "felix_commit_offset"));
  }

  @Test
  void inSyncReplicasAreReportedPerShardAndUnderReplicatedShardsCountedPerStreamUntilReleased() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    ShardId orders0 = new ShardId("orders", 0);
    ShardId orders1 = new ShardId("orders", 1);
    ShardId clicks0 = new ShardId("clicks", 0);
    metrics.replicasInSync(orders0, 2, 3);
    metrics.replicasInSync(orders1, 1, 3);
    metrics.replicasInSync(orders1, 1, 3); // reported again: counted once
    metrics.replicasInSync(clicks0, 1, 3);
    metrics.replicasInSync(clicks0, 3, 3);
    assertEquals(List.of("felix_under_replicated_shards{stream=\"clicks\"} 0.0",
        "felix_under_replicated_shards{stream=\"orders\"} 2.0"), samples(metrics, "felix_under_replicated_shards"));
    assertEquals(List.of("felix_in_sync_replicas{shard=\"0\",stream=\"clicks\"} 3.0",
        "felix_in_sync_replicas{shard=\"0\",stream=\"orders\"} 2.0",
        "felix_in_sync_replicas{shard=\"1\",stream=\"orders\"} 1.0"), samples(metrics, "felix_in_sync_replicas"));

    metrics.shardReleased(orders0);
    assertEquals(List.of("felix_under_replicated_shards{stream=\"clicks\"} 0.0",
        "felix_under_replicated_shards{stream=\"orders\"} 1.0"), samples(metrics, "felix_under_replicated_shards"));
    assertEquals(List.of("felix_in_sync_replicas{shard=\"0\",stream=\"clicks\"} 3.0",
        "felix_in_sync_replicas{shard=\"1\",stream=\"orders\"} 1.0"), samples(metrics, "felix_in_sync_replicas"));
  }

  @Test
  void forwardedBatchesAndBytesAreCountedPerLeader() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    metrics.batchForwarded(1, 1000);
    metrics.batchForwarded(1, 24);
    metrics.batchForwarded(2, 5);

    assertEquals(List.of(
        "felix_forwarded_batches_total{leader=\"1\"} 2.0",
        "felix_forwarded_batches_total{leader=\"2\"} 1.0"), samples(metrics, "felix_forwarded_batches_total"));
    assertEquals(List.of(
        "felix_forwarded_bytes_total{leader=\"1\"} 1024.0",
        "felix_forwarded_bytes_total{leader=\"2\"} 5.0"), samples(metrics, "felix_forwarded_bytes_total"));
  }

  @Test
  void movesAndPlacementPassesAreCounted() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    metrics.movesInFlight(1);
    metrics.moveFinished(true);
    metrics.moveFinished(true);
    metrics.moveFinished(false);
    metrics.placementPassRun();
    metrics.placementPassRun();
    metrics.placementPassRun();

    assertEquals(List.of("felix_moves_in_flight 1.0"), samples(metrics, "felix_moves_in_flight"));
    assertEquals(List.of(
        "felix_moves_finished_total{outcome=\"aborted\"} 1.0",
        "felix_moves_finished_total{outcome=\"completed\"} 2.0"), samples(metrics, "felix_moves_finished_total"));
    assertEquals(List.of("felix_placement_passes_total 3.0"), samples(metrics, "felix_placement_passes_total"));
  }

  @Test
  void twoBrokersInOneJvmKeepTheirOwnCounts() {
    BrokerMetrics first = new BrokerMetrics(0, "a");
    BrokerMetrics second = new BrokerMetrics(1, "b");
    first.recordAppended("orders", 10, 100);

    assertEquals(List.of("felix_records_appended_total{stream=\"orders\"} 10.0"),
        samples(first, "felix_records_appended_total"));
    assertEquals(List.of(), samples(second, "felix_records_appended_total"));
    assertEquals(List.of("felix_broker_info{broker=\"1\",zone=\"b\"} 1.0"), samples(second, "felix_broker_info"));
  }

  @Test
  void processCpuAndJvmMemoryAreExported() {
    BrokerMetrics metrics = new BrokerMetrics(0, null);
    List<String> cpu = samples(metrics, "process_cpu_seconds_total");
    assertEquals(1, cpu.size(), cpu.toString());
    double seconds = Double.parseDouble(cpu.get(0).substring("process_cpu_seconds_total ".length()));
    assertTrue(seconds > 0, "a JVM that ran tests has used CPU: " + cpu);
    assertTrue(samples(metrics, "jvm_memory_used_bytes").size() >= 2, "heap and non-heap are exported");
    assertEquals(List.of("felix_broker_info{broker=\"0\",zone=\"\"} 1.0"), samples(metrics, "felix_broker_info"));
    assertTrue(metrics.contentType().startsWith("text/plain; version=0.0.4"), metrics.contentType());
  }
}
