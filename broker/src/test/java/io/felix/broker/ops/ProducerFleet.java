package io.felix.broker.ops;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.RecordMetadata;
import io.felix.protocol.client.Acks;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Producers writing to one stream with {@code quorum} acks until stopped, each with its own client, keeping
 * what the brokers acknowledged: producer and sequence number to (shard, offset). Every record's value is
 * {@code producer, sequence, CRC32C of the payload, payload}, so a reader can tell missing, duplicated,
 * reordered and corrupt records apart. One batch in flight per shard and no retry of an ambiguous failure, so
 * a correct broker gives exactly-once, in-order records per producer and shard.
 */
final class ProducerFleet implements AutoCloseable {

  record Acked(int shard, long offset) {}

  static final int PAYLOAD = 200;

  private final List<FelixClient> clients = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final Map<Long, Acked> acked = new ConcurrentHashMap<>(); // key: producer << 40 | sequence
  private final AtomicLong failed = new AtomicLong();
  private final List<Semaphore> windows = new ArrayList<>();
  private static final int WINDOW = 256;

  ProducerFleet(String bootstrap, String stream, int producers) {
    for (int p = 0; p < producers; p++) {
      FelixClient client = new FelixClient(ClientSettings.builder(bootstrap)
          .mode(ClientMode.CLUSTER).acks(Acks.QUORUM).maxInFlightBatchesPerShard(1).retryAmbiguousErrors(false)
          .linger(Duration.ofMillis(2)).requestTimeout(Duration.ofSeconds(15)).ackTimeout(Duration.ofSeconds(5))
          .deliveryTimeout(Duration.ofSeconds(60)).retries(100).retryBackoffMax(Duration.ofMillis(500)).build());
      clients.add(client);
      Semaphore window = new Semaphore(WINDOW);
      windows.add(window);
      int producer = p;
      Thread t = new Thread(() -> produceUntilStopped(client, stream, producer, window), "producer-" + p);
      threads.add(t);
      t.start();
    }
  }

  private void produceUntilStopped(FelixClient client, String stream, int producer, Semaphore window) {
    long seq = 0;
    try {
      while (running.get()) {
        if (!window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
          continue;
        }
        long s = seq++;
        client.produce(stream, ("p" + producer + "-" + s).getBytes(StandardCharsets.UTF_8), value(producer, s))
            .whenComplete((RecordMetadata m, Throwable e) -> {
              if (e == null) {
                acked.put(key(producer, s), new Acked(m.shard(), m.offset()));
              } else {
                failed.incrementAndGet();
              }
              window.release();
            });
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static byte[] value(int producer, long seq) {
    ByteBuffer b = ByteBuffer.allocate(16 + PAYLOAD);
    b.putInt(producer).putLong(seq);
    byte[] payload = new byte[PAYLOAD];
    for (int i = 0; i < PAYLOAD; i++) {
      payload[i] = (byte) (seq * 31 + i * 7 + producer);
    }
    CRC32C crc = new CRC32C();
    crc.update(payload);
    b.putInt((int) crc.getValue()).put(payload);
    return b.array();
  }

  static long key(int producer, long seq) {
    return ((long) producer << 40) | seq;
  }

  long ackedCount() {
    return acked.size();
  }

  long failedCount() {
    return failed.get();
  }

  Map<Long, Acked> acked() {
    return acked;
  }

  /** Stops producing and waits until every record sent has been answered (acknowledged or failed). */
  void stop() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join(10_000);
    }
    for (Semaphore w : windows) {
      if (!w.tryAcquire(WINDOW, 90, TimeUnit.SECONDS)) {
        throw new AssertionError("records still unanswered 90 s after the producers stopped");
      }
    }
  }

  @Override
  public void close() {
    running.set(false);
    clients.forEach(FelixClient::close);
  }
}
