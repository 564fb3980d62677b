package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.RecordMetadata;
import com.google.protobuf.ByteString;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client finds the leader while brokers disagree about it: three brokers in this JVM, tables pushed by hand
 * so that one broker can be left with an old table (a lost push), and a real client producing throughout. Every
 * acknowledged record must be read back exactly once, at its acknowledged offset.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class ClientRoutingClusterTest {
  private static final String STREAM = "routing";
  private static final ShardId SHARD = new ShardId(STREAM, 0);
  /** requestTimeout when a bootstrap broker is silent: far above connectTimeout, so the two cannot be mistaken. */
  private static final Duration SILENT_TIMEOUT = Duration.ofSeconds(10);

  @TempDir
  Path dir;

  /** The next table: the one shard on replicas 0, 1, 2, led by {@code leader} at {@code epoch}. */
  private static AssignmentTable table(TestBrokers brokers, int leader, long epoch) {
    return brokers.table(Map.of(STREAM, 1),
        List.of(new ShardAssignment(SHARD, List.of(0, 1, 2), List.of(), leader, epoch)));
  }

  private static ClientSettings.Builder settings(String bootstrap) {
    return ClientSettings.builder(bootstrap)
        .acks(Acks.QUORUM)
        .linger(Duration.ofMillis(1))
        .connectTimeout(Duration.ofSeconds(1))
        .requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(3))
        .deliveryTimeout(Duration.ofSeconds(20));
  }

  /**
   * The leader moves from broker 0 to broker 1 (fence, catch-up, new table at epoch 2) while broker 2, the first
   * bootstrap broker, keeps the old table that names broker 0. Before this change the client re-read that old
   * table after every NOT_LEADER and went back to broker 0 until its records failed.
   */
  @Test
  void theClientFollowsAMovedLeaderThoughTheFirstBootstrapBrokerKeepsTheOldTable() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 3, "")) {
      brokers.apply(table(brokers, 0, 1));
      for (int b = 0; b < 3; b++) {
        int broker = b;
        TestBrokers.await("broker " + b + " hosts the shard", Duration.ofSeconds(20),
            () -> brokers.describe(broker, SHARD).hosted());
      }
      String bootstrap = String.join(",", brokers.clientAddress(2), brokers.clientAddress(0),
          brokers.clientAddress(1));
      try (FelixClient client = new FelixClient(settings(bootstrap).build())) {
        Producer producer = new Producer(client);
        Thread producing = new Thread(producer::produceUntilStopped, "producer");
        producing.start();
        TestBrokers.await("records acknowledged by broker 0", Duration.ofSeconds(20), () -> producer.acked() >= 50);
        // The move, as the control plane cuts over: fence the leader, let broker 1 catch up, push epoch 2 to the
        // brokers 0 and 1 only. Broker 2 keeps table 1 (leader 0, epoch 1).
        assertEquals(ReplicaRole.FENCED, brokers.fence(0, SHARD, 2).role());
        long end = brokers.describe(0, SHARD).logEndOffset();
        TestBrokers.await("broker 1 holds the fenced leader's log", Duration.ofSeconds(10),
            () -> brokers.describe(1, SHARD).logEndOffset() == end);
        AssignmentTable moved = table(brokers, 1, 2);
        long movedAt = System.nanoTime();
        brokers.applyTo(1, moved);
        brokers.applyTo(0, moved);
        Thread.sleep(3000);
        producer.stop();
        producing.join();
        producer.awaitAll();
        // The old leader stopped at offset `end`: an acknowledgement at or past it came from the new leader. The
        // bound leaves room for the produce latency of a machine whose cores are shared with other builds.
        long reached = producer.firstAckAtOrAfter(end);
        assertTrue(reached - movedAt < TimeUnit.SECONDS.toNanos(3),
            "the client reached the new leader " + TimeUnit.NANOSECONDS.toMillis(reached - movedAt)
                + " ms after the move");
        producer.assertEveryAcknowledgedRecordReadBackOnce(bootstrap);
        // What the client was told: broker 0 names broker 1 with its epoch and broker 0's table version.
        try (RawClient raw = new RawClient(brokers.endpoint(0).host(), brokers.endpoint(0).clientPort())) {
          Error notLeader = raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream(STREAM)
              .setShard(0).setRecords(RecordLists.encode(List.of(Record.newBuilder()
                  .setValue(ByteString.copyFromUtf8("late")).build()))))).getError();
          assertEquals(ErrorCode.NOT_LEADER, notLeader.getCode());
          assertEquals(List.of(1, 2L, moved.version(), brokers.clientAddress(1)), List.of(notLeader.getLeaderId(),
              notLeader.getLeaderEpoch(), notLeader.getAssignmentVersion(), notLeader.getLeaderAddress()));
        }
        System.out.printf("moved leader reached after %d ms; %s%n",
            TimeUnit.NANOSECONDS.toMillis(reached - movedAt), producer.summary());
      }
    }
  }

  /**
   * The first bootstrap address belongs to a broker that is down but whose port still takes connections (a
   * stopped or hung process): both client modes read metadata within about connectTimeout (1 s) rather than
   * requestTimeout (10 s here), produce without a failure, and every acknowledged record is read back once.
   * Before this change the first produce failed after requestTimeout.
   */
  @Test
  void bothModesProduceWhenTheFirstBootstrapBrokerTakesConnectionsButNeverAnswers() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 3, "");
        ServerSocket hung = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      brokers.apply(table(brokers, 0, 1));
      TestBrokers.await("broker 0 leads", Duration.ofSeconds(20),
          () -> brokers.describe(0, SHARD).role() == ReplicaRole.LEADER);
      String bootstrap = String.join(",", "127.0.0.1:" + hung.getLocalPort(), brokers.clientAddress(1),
          brokers.clientAddress(2));
      for (ClientMode mode : ClientMode.values()) {
        try (FelixClient probe =
            new FelixClient(settings(bootstrap).mode(mode).requestTimeout(SILENT_TIMEOUT).build())) {
          long asked = System.nanoTime();
          probe.metadata(STREAM).get(30, TimeUnit.SECONDS);
          long took = System.nanoTime() - asked;
          // connectTimeout (1 s) for the silent broker, then the next one answers; before, requestTimeout (10 s).
          // The rest of the bound is room for a machine whose cores are shared with other builds.
          assertTrue(took < TimeUnit.SECONDS.toNanos(5),
              mode + ": metadata took " + TimeUnit.NANOSECONDS.toMillis(took) + " ms");
        }
        try (FelixClient client = new FelixClient(settings(bootstrap).mode(mode).requestTimeout(SILENT_TIMEOUT)
            .build())) {
          Producer producer = new Producer(client);
          long start = System.nanoTime();
          producer.produceRecords(300);
          producer.awaitAll();
          long first = producer.firstAckOfARecordSentAfter(start);
          assertEquals(0, producer.failed(), mode + ": " + producer.summary()); // before, the first produce failed
          producer.assertEveryAcknowledgedRecordReadBackOnce(brokers.clientAddress(1));
          System.out.printf("%s mode, first bootstrap broker hung: first acknowledgement after %d ms; %s%n", mode,
              TimeUnit.NANOSECONDS.toMillis(first - start), producer.summary());
        }
      }
    }
  }

  /** Produces numbered records to the shard, a few hundred a second, and keeps what was acknowledged. */
  private static final class Producer {
    private final FelixClient client;
    private final List<Sent> sent = new ArrayList<>();
    private final AtomicLong acked = new AtomicLong();
    private volatile boolean stopped;

    private record Sent(String value, long sentAt, CompletableFuture<RecordMetadata> ack, long[] ackedAt) {}

    Producer(FelixClient client) {
      this.client = client;
    }

    /** Produces for {@code duration}; the list of what was sent is read only after this returns. */
    void produceFor(Duration duration) {
      long until = System.nanoTime() + duration.toNanos();
      while (System.nanoTime() < until && !stopped) {
        String value = "record-" + sent.size() + "-" + System.identityHashCode(client);
        long[] ackedAt = {Long.MAX_VALUE};
        long at = System.nanoTime();
        // completes after the time is stamped, so whoever waits for it sees the time
        CompletableFuture<RecordMetadata> ack = client.produce(STREAM, 0, null,
            value.getBytes(StandardCharsets.UTF_8), List.of()).whenComplete((m, e) -> {
              ackedAt[0] = System.nanoTime();
              if (e == null) {
                acked.incrementAndGet();
              }
            });
        sent.add(new Sent(value, at, ack, ackedAt));
        LockSupport.parkNanos(2_000_000);
      }
    }

    /** Produces {@code count} records (the first waits for metadata, so a count, not a duration). */
    void produceRecords(int count) {
      int until = sent.size() + count;
      while (sent.size() < until) {
        produceFor(Duration.ofMillis(100));
      }
    }

    void produceUntilStopped() {
      produceFor(Duration.ofMinutes(1));
    }

    void stop() {
      stopped = true;
    }

    long acked() {
      return acked.get();
    }

    long failed() {
      return sent.stream().filter(s -> s.ack().isCompletedExceptionally()).count();
    }

    String summary() {
      return sent.size() + " sent, " + (sent.size() - failed()) + " acknowledged, " + failed() + " failed, "
          + client.retries() + " retries";
    }

    void awaitAll() {
      CompletableFuture.allOf(sent.stream().map(Sent::ack).toArray(CompletableFuture<?>[]::new))
          .exceptionally(e -> null).join();
    }

    /** When the first record at {@code offset} or later was acknowledged (Long.MAX_VALUE: never). */
    long firstAckAtOrAfter(long offset) {
      return sent.stream().filter(s -> !s.ack().isCompletedExceptionally() && s.ack().join().offset() >= offset)
          .mapToLong(s -> s.ackedAt()[0]).min().orElse(Long.MAX_VALUE);
    }

    /** When the first record produced after {@code nanos} was acknowledged (Long.MAX_VALUE: never). */
    long firstAckOfARecordSentAfter(long nanos) {
      return sent.stream().filter(s -> s.sentAt() >= nanos).findFirst().map(s -> s.ackedAt()[0])
          .orElse(Long.MAX_VALUE);
    }

    /** Reads the shard back from its leader (any client mode would do; plain mode may read a trailing follower). */
    void assertEveryAcknowledgedRecordReadBackOnce(String bootstrap) throws Exception {
      Map<String, Long> acknowledged = new HashMap<>();
      int failed = 0;
      for (Sent s : sent) {
        try {
          acknowledged.put(s.value(), s.ack().get().offset());
        } catch (ExecutionException e) {
          failed++;
        }
      }
      Map<String, Integer> copies = new HashMap<>();
      Map<String, Long> offsets = new HashMap<>();
      long last = acknowledged.values().stream().mapToLong(Long::longValue).max().orElse(-1);
      try (FelixClient reader = new FelixClient(settings(bootstrap).build())) {
        long offset = 0;
        while (offset <= last) {
          FetchResult r = reader.fetch(STREAM, 0, offset, 1 << 20, 100).get(30, TimeUnit.SECONDS);
          for (FetchedRecord f : r.records()) {
            String value = new String(f.value(), StandardCharsets.UTF_8);
            copies.merge(value, 1, Integer::sum);
            offsets.put(value, f.offset());
          }
          offset = r.nextOffset();
        }
      }
      assertTrue(acknowledged.size() > 100, acknowledged.size() + " acknowledged, " + failed + " failed");
      for (Map.Entry<String, Long> a : acknowledged.entrySet()) {
        assertEquals(1, copies.getOrDefault(a.getKey(), 0), a.getKey() + " read back once");
        assertEquals(a.getValue(), offsets.get(a.getKey()), a.getKey() + " at its acknowledged offset");
      }
      for (Map.Entry<String, Integer> c : copies.entrySet()) {
        assertEquals(1, c.getValue(), c.getKey() + " stored once");
      }
    }
  }
}
