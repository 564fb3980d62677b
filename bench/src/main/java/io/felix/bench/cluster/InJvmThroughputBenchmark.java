package io.felix.bench.cluster;

import com.typesafe.config.Config;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.client.ProducerIdSource;
import io.felix.broker.node.DataPlane;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.protocol.client.Acks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.HdrHistogram.Recorder;
import org.HdrHistogram.Histogram;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;

/**
 * Throughput of a three-broker, replication-factor-3 cluster in one JVM (three ActorSystems on 127.0.0.1, each
 * with its own data directory and flush = always): one cluster-mode client produces fixed-size records to 12
 * shards whose leaders are spread over the brokers, with quorum acks, keeping a bounded number of records in
 * flight. Prints records/s, MB/s and produce latency (produce() call to acknowledgement) percentiles.
 *
 * <pre>
 * java -Xmx2g -cp bench/target/felix-bench.jar io.felix.bench.cluster.InJvmThroughputBenchmark \
 *     [seconds=20] [warmupSeconds=5] [recordBytes=1024] [shards=12] [inFlightRecords=16384] [acks=QUORUM]
 *     [inFlightBatchesPerShard=5]
 * </pre>
 * Not a test: it asserts nothing and its figures depend on the machine (2 shared cores here).
 */
public final class InJvmThroughputBenchmark {
  private InJvmThroughputBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = arg(args, 0, 20);
    int warmup = arg(args, 1, 5);
    int recordBytes = arg(args, 2, 1024);
    int shards = arg(args, 3, 12);
    int inFlight = arg(args, 4, 16384);
    Acks acks = args.length > 5 ? Acks.valueOf(args[5]) : Acks.QUORUM;
    int batchesPerShard = arg(args, 6, 5);
    Path root = Files.createTempDirectory("felix-bench");
    List<ActorSystem<?>> systems = new ArrayList<>();
    List<DataPlane> planes = new ArrayList<>();
    Map<Integer, BrokerEndpoint> endpoints = new TreeMap<>();
    AtomicLong producerIds = new AtomicLong();
    for (int id = 0; id < 3; id++) {
      Config config = DataPlane.localConfig(id, root.resolve("broker-" + id), "pekko.loglevel = WARNING");
      DataPlane plane = DataPlane.startInOwnSystem(config);
      plane.useProducerIds(ProducerIdSource.sharedCounter(producerIds));
      ActorSystem<?> system = plane.system();
      Cluster.get(system).manager().tell(Join.create(Cluster.get(systems.isEmpty() ? system : systems.get(0))
          .selfMember().address()));
      systems.add(system);
      planes.add(plane);
      endpoints.put(id, plane.endpoint());
    }
    TreeMap<ShardId, ShardAssignment> assignments = new TreeMap<>();
    for (int s = 0; s < shards; s++) {
      ShardId id = new ShardId("bench", s);
      assignments.put(id, new ShardAssignment(id, List.of(0, 1, 2), List.of(), s % 3, 1));
    }
    AssignmentTable table = new AssignmentTable(1, endpoints, Map.of("bench", shards), assignments);
    planes.forEach(p -> p.directory().tell(new ReplicaDirectory.ApplyAssignments(table)));
    Thread.sleep(1000);

    Recorder latency = new Recorder(3);
    AtomicLong acked = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    Semaphore window = new Semaphore(inFlight);
    byte[] value = new byte[recordBytes];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) ('a' + i % 26);
    }
    try (FelixClient client = new FelixClient(ClientSettings.builder(endpoints.get(0).clientAddress())
        .acks(acks).linger(Duration.ofMillis(2)).batchSizeBytes(256 * 1024).maxInFlightBatchesPerShard(batchesPerShard).build())) {
      long start = System.nanoTime();
      long measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
      long end = measureFrom + TimeUnit.SECONDS.toNanos(seconds);
      long ackedAtMeasure = -1;
      long bytesAtMeasure = 0;
      long cpuAtMeasure = 0;
      int shard = 0;
      while (System.nanoTime() < end) {
        long now = System.nanoTime();
        if (ackedAtMeasure < 0 && now >= measureFrom) {
          ackedAtMeasure = acked.get();
          bytesAtMeasure = replicatedBytes(planes);
          cpuAtMeasure = processCpuNanos();
          latency.reset();
        }
        window.acquire();
        long sent = System.nanoTime();
        client.produce("bench", shard, null, value, List.of()).whenComplete((m, e) -> {
          window.release();
          if (e == null) {
            acked.incrementAndGet();
            latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
          } else {
            failed.incrementAndGet();
          }
        });
        shard = (shard + 1) % shards;
      }
      long measuredAcked = acked.get() - ackedAtMeasure;
      long replicated = replicatedBytes(planes) - bytesAtMeasure;
      double cpuMs = (processCpuNanos() - cpuAtMeasure) / 1e6;
      Histogram h = latency.getIntervalHistogram();
      double recordsPerSecond = measuredAcked / (double) seconds;
      System.out.printf("Felix in-JVM benchmark: 3 brokers, RF 3, %d shards, %d-byte records, acks %s, %d s measured "
              + "after %d s warm-up, at most %d records and %d batches per shard in flight%n", shards, recordBytes, acks,
          seconds, warmup, inFlight, batchesPerShard);
      System.out.printf("  acknowledged: %,d records = %,.0f records/s = %.1f MB/s of record values (failed: %d)%n",
          measuredAcked, recordsPerSecond, recordsPerSecond * recordBytes / 1e6, failed.get());
      System.out.printf("  replication traffic: %.1f MB/s (all broker-to-broker frames)%n", replicated / 1e6 / seconds);
      System.out.printf("  CPU of the whole JVM (3 brokers and the client): %.1f CPU-ms per MiB of record values, "
          + "%.2f cores busy%n", cpuMs / (measuredAcked * (double) recordBytes / (1 << 20)), cpuMs / 1000 / seconds);
      System.out.printf("  produce latency (produce() to ack): p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms%n",
          h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
          h.getValueAtPercentile(99.9) / 1000.0, h.getMaxValue() / 1000.0);
    }
    for (int i = planes.size() - 1; i >= 0; i--) {
      systems.get(i).terminate();
      systems.get(i).getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
    try (Stream<Path> files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static long replicatedBytes(List<DataPlane> planes) {
    return planes.stream().mapToLong(DataPlane::replicationBytesSent).sum();
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static int arg(String[] args, int i, int fallback) {
    return args.length > i ? Integer.parseInt(args[i]) : fallback;
  }
}
