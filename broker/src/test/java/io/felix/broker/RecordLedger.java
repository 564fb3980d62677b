package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.RecordMetadata;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Writes uniquely numbered records through the client library in the background and remembers every
 * acknowledged one (shard, offset, value); {@link #assertAllReadable} reads every shard back from offset 0 and
 * checks each acknowledged record is at its offset and no value appears twice.
 */
public final class RecordLedger implements AutoCloseable {

  private final FelixClient client;
  private final String stream;
  private final int shards;
  private final Map<String, RecordMetadata> acked = new ConcurrentHashMap<>();
  private final AtomicInteger sent = new AtomicInteger();
  private final AtomicInteger failed = new AtomicInteger();
  private final Map<Integer, Long> endOffsets = new ConcurrentHashMap<>();
  private volatile boolean running;
  private Thread writer;
  private volatile String lastFailure = "";

  private final String label;

  public RecordLedger(FelixClient client, String stream, int shards) {
    this(client, stream, shards, stream);
  }

  /** @param label prefix of the record values, distinct per ledger writing to the same stream */
  public RecordLedger(FelixClient client, String stream, int shards, String label) {
    this.label = label;
    this.client = client;
    this.stream = stream;
    this.shards = shards;
  }

  /** Writes about {@code perSecond} records per second, round robin over the shards, until {@link #stop}. */
  public void start(int perSecond) {
    running = true;
    writer = new Thread(() -> {
      long pauseNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
      while (running) {
        write(sent.get() % shards);
        long until = System.nanoTime() + pauseNanos;
        while (System.nanoTime() < until && running) {
          Thread.onSpinWait();
          try {
            Thread.sleep(1);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }, "ledger-writer");
    writer.start();
  }

  /** Writes one record to {@code shard} and waits for its answer; true when acknowledged. */
  public boolean writeAndWait(int shard) {
    try {
      write(shard).get(70, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      lastFailure = e.toString();
      return false;
    }
  }

  /** Why the last {@link #writeAndWait} that failed did, for assertion messages. */
  public String lastFailure() {
    return lastFailure;
  }

  /**
   * Writes one record to every shard (each must be acknowledged), then starts writing {@code perSecond} and
   * returns once {@code records} more are acknowledged: a stream known to take writes on every shard, under load.
   */
  public void startOnEveryShard(int perSecond, int records) {
    for (int shard = 0; shard < shards; shard++) {
      if (!writeAndWait(shard)) {
        org.junit.jupiter.api.Assertions.fail("shard " + shard + " takes writes: " + lastFailure);
      }
    }
    start(perSecond);
    awaitMoreAcknowledged(records);
  }

  /** Returns once {@code records} more than now are acknowledged (within 30 s). */
  public void awaitMoreAcknowledged(int records) {
    int ackedNow = acknowledged();
    BrokerCluster.await(java.time.Duration.ofSeconds(30), records + " more records acknowledged",
        () -> acknowledged() >= ackedNow + records);
  }

  /**
   * For each of {@code shards}, the milliseconds from {@code sinceNanos} until a record written to it is
   * acknowledged (each retried until one is): how long each shard took to be writable again after a fault.
   */
  public List<java.util.concurrent.CompletableFuture<Long>> writableAgain(List<Integer> shards, long sinceNanos) {
    return shards.stream().map(shard -> java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      while (!writeAndWait(shard)) {
        // the next attempt follows the new metadata
      }
      return (System.nanoTime() - sinceNanos) / 1_000_000;
    })).toList();
  }

  private java.util.concurrent.CompletableFuture<RecordMetadata> write(int shard) {
    String value = label + "-" + sent.getAndIncrement();
    return client.produce(stream, shard, null, value.getBytes(StandardCharsets.UTF_8), List.of())
        .whenComplete((meta, failure) -> {
          if (failure == null) {
            acked.put(value, meta);
          } else {
            failed.incrementAndGet();
          }
        });
  }

  public void stop() throws InterruptedException {
    running = false;
    if (writer != null) {
      writer.join(30_000);
    }
    client.flush();
  }

  public int acknowledged() {
    return acked.size();
  }

  public int failures() {
    return failed.get();
  }

  /** Every acknowledged record is at its offset; no value is stored twice. Returns the records read. */
  public int assertAllReadable(FelixClient reader) throws Exception {
    return assertAllReadable(reader, java.util.stream.IntStream.range(0, shards).boxed().toList());
  }

  /** {@link #assertAllReadable(FelixClient)} when only {@code written} shards were written to (the others may be down). */
  public int assertAllReadable(FelixClient reader, List<Integer> written) throws Exception {
    Map<Integer, Map<Long, String>> stored = new HashMap<>();
    Set<String> seen = new HashSet<>();
    int total = 0;
    for (int shard : written) {
      Map<Long, String> byOffset = new HashMap<>();
      long offset = 0;
      while (true) {
        FetchResult result = reader.fetch(stream, shard, offset, 1 << 20, 50).get(30, TimeUnit.SECONDS);
        for (FetchedRecord record : result.records()) {
          String value = new String(record.value(), StandardCharsets.UTF_8);
          assertTrue(seen.add(value), "record " + value + " is stored twice (again at " + shard + "/" + record.offset() + ")");
          byOffset.put(record.offset(), value);
          total++;
        }
        // A fetch returns the records of every batch from the offset up to the commit offset (1 MiB is far
        // more than these tests write): an empty answer means nothing is left, even below the commit offset
        // (a leader's epoch-start batch holds an offset but no records).
        if (result.records().isEmpty()) {
          endOffsets.put(shard, result.commitOffset());
          break;
        }
        offset = result.nextOffset();
      }
      stored.put(shard, byOffset);
    }
    for (Map.Entry<String, RecordMetadata> ack : acked.entrySet()) {
      RecordMetadata meta = ack.getValue();
      assertEquals(ack.getKey(), stored.get(meta.shard()).get(meta.offset()),
          "acknowledged record " + ack.getKey() + " at " + meta.shard() + "/" + meta.offset());
    }
    return total;
  }

  /** Each shard's commit offset as the last {@link #assertAllReadable} read it to. */
  public Map<Integer, Long> endOffsets() {
    return Map.copyOf(endOffsets);
  }

  @Override
  public void close() throws InterruptedException {
    stop();
  }
}
