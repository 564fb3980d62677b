package io.felix.loadgen;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.GroupConsumer;
import io.felix.client.GroupConsumerOptions;
import io.felix.client.GroupRecord;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.client.HostPort;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code consume}: reads every shard of a stream, one shard after another, and with {@code --verify} checks
 * every record ({@link Verifier}).
 *
 * <p>Where reading ends: every shard's commit offset is read first (the end when reading started). With
 * {@code --from-beginning}, each shard is read from its log start up to that end, or until {@code --idle} passes
 * without progress. Without it, each shard is read from that end on until {@code --idle} passes without new
 * records.
 */
public final class ConsumeRun {
  private final ConsumeOptions options;
  private final PrintStream out;
  private final Verifier verifier = new Verifier();
  private long records;
  private long bytes;

  public ConsumeRun(ConsumeOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  public int run() throws IOException, InterruptedException {
    Summary expected = options.expect() == null ? null : Summary.read(options.expect());
    if (expected != null && !expected.stream().equals(options.stream())) {
      System.err.println("consume: --expect describes stream " + expected.stream() + ", not " + options.stream());
      return 2;
    }
    long start = System.nanoTime();
    try (FelixClient client = client()) {
      List<Integer> shards;
      try {
        shards = StreamCheck.shards(client, options.stream());
      } catch (IllegalStateException e) {
        System.err.println("consume: " + e.getMessage());
        return 1;
      }
      if (options.group() != null) {
        readAsGroup();
      } else {
        readAll(client, shards, start);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    out.printf("consume: read %d records (%.2f MB) from %s in %.1f s%n", records, bytes / 1e6,
        options.stream(), seconds);
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("stream", options.stream());
    json.put("records", records);
    json.put("bytes", bytes);
    json.put("elapsed_seconds", Math.round(seconds * 1000) / 1000.0);
    int code = 0;
    if (options.verify()) {
      Verifier.Report report = verifier.report(expected);
      print(report, expected != null);
      json.put("ok", report.ok());
      json.put("verify", report);
      code = report.ok() ? 0 : 1;
    }
    if (options.json() != null) {
      Summary.JSON.writeValue(options.json().toFile(), json);
    }
    return code;
  }

  /**
   * Reads the whole stream from the beginning, printing nothing, and checks it against a producer's ledger: what
   * {@code consume --from-beginning --verify --expect} does, for the chaos command.
   *
   * @throws IllegalStateException naming the problem when the stream's metadata cannot be read
   */
  public static Verifier.Report verifyAgainst(List<HostPort> bootstrap, String stream, Summary expected)
      throws InterruptedException {
    ConsumeOptions options = new ConsumeOptions(bootstrap, stream, ClientMode.CLUSTER, true, true, null, null,
        Duration.ofSeconds(10), 1024 * 1024);
    ConsumeRun run = new ConsumeRun(options, new PrintStream(OutputStream.nullOutputStream()));
    try (FelixClient client = run.client()) {
      run.readAll(client, StreamCheck.shards(client, stream), System.nanoTime());
    }
    return run.verifier.report(expected);
  }

  private FelixClient client() {
    return new FelixClient(ClientSettings.builder(options.bootstrap()).mode(options.mode())
        .credentials(options.credentials()).tls(options.tls()).build());
  }

  /**
   * Reads as {@code --members} members of {@code --group}, each polling the shards the group grants it and
   * committing after each poll, until nothing arrived at any member for {@code --idle}; with {@code --churn}, every
   * churn interval the oldest member leaves (commits, then leaves) and a new one joins. A shard is granted to its
   * next member only once its holder has released it, so together the members read every record once.
   */
  private void readAsGroup() throws InterruptedException {
    AtomicLong lastRecord = new AtomicLong(System.nanoTime());
    Deque<GroupMember> members = new ArrayDeque<>();
    int started = 0;
    try {
      for (; started < options.members(); started++) {
        members.add(new GroupMember("member-" + started, lastRecord));
      }
      long churnNanos = options.churn() == null ? Long.MAX_VALUE : options.churn().toNanos();
      long nextChurn = System.nanoTime() + churnNanos;
      while (System.nanoTime() - lastRecord.get() < options.idle().toNanos()) {
        Thread.sleep(50);
        if (System.nanoTime() >= nextChurn) {
          members.removeFirst().stop();
          members.add(new GroupMember("member-" + started++, lastRecord));
          nextChurn += churnNanos;
        }
      }
    } finally {
      for (GroupMember m : members) {
        m.stop();
      }
    }
    out.printf("consume: group %s: %d members in all, %d at a time%n", options.group(), started,
        options.members());
  }

  /** One member of the group on its own thread and client, until stopped (then it commits and leaves). */
  private final class GroupMember {
    private final FelixClient client = client();
    private final GroupConsumer consumer = new GroupConsumer(client, GroupConsumerOptions.DEFAULTS);
    private final Thread thread;
    private volatile boolean running = true;

    GroupMember(String name, AtomicLong lastRecord) {
      consumer.subscribe(options.stream(), options.group());
      thread = new Thread(() -> read(lastRecord), "consume-" + name);
      thread.start();
    }

    private void read(AtomicLong lastRecord) {
      while (running) {
        List<GroupRecord> polled;
        try {
          polled = consumer.poll(Duration.ofMillis(500));
        } catch (RuntimeException e) {
          out.printf("consume: group %s: poll failed (%s); polling again%n", options.group(), e.getMessage());
          continue;
        }
        if (polled.isEmpty()) {
          continue;
        }
        lastRecord.set(System.nanoTime());
        synchronized (ConsumeRun.this) {
          for (GroupRecord r : polled) {
            records++;
            bytes += r.record().value().length;
            if (options.verify()) {
              verifier.accept(r.shard(), r.offset(), r.record().value());
            }
          }
        }
        try {
          consumer.commitSync();
        } catch (RuntimeException e) {
          out.printf("consume: commit of group %s failed (%s); those records are read again%n", options.group(),
              e.getMessage());
        }
      }
    }

    void stop() throws InterruptedException {
      running = false;
      thread.join();
      try {
        consumer.close();
      } finally {
        client.close();
      }
    }
  }

  private void readAll(FelixClient client, List<Integer> shards, long start) throws InterruptedException {
    Map<Integer, Long> ends = new LinkedHashMap<>();
    for (int shard : shards) {
      ends.put(shard, commitOffset(client, shard));
    }
    Thread progress = new Thread(() -> progressLoop(start), "consume-progress");
    progress.setDaemon(true);
    progress.start();
    for (int shard : shards) {
      readShard(client, shard, ends.get(shard));
    }
    progress.interrupt();
  }

  /** The shard's commit offset now (-1 when it cannot be read: the shard is then read until idle). */
  private long commitOffset(FelixClient client, int shard) {
    try {
      return client.fetch(options.stream(), shard, 0, 1024, 0).join().commitOffset();
    } catch (RuntimeException e) {
      System.err.println("consume: cannot read the end of shard " + shard + ": " + e.getMessage());
      return -1;
    }
  }

  private void progressLoop(long start) {
    long last = 0;
    try {
      while (true) {
        Thread.sleep(1000);
        long now;
        long b;
        synchronized (this) {
          now = records;
          b = bytes;
        }
        out.printf("[%4ds] %9d rec/s  %d records read, %.2f MB%n", Math.round((System.nanoTime() - start) / 1e9),
            now - last, now, b / 1e6);
        last = now;
      }
    } catch (InterruptedException e) {
      // reading is over
    }
  }

  private void readShard(FelixClient client, int shard, long end) throws InterruptedException {
    long offset = options.fromBeginning() ? 0 : Math.max(end, 0);
    long lastProgress = System.nanoTime();
    long shardRecords = 0;
    while (System.nanoTime() - lastProgress < options.idle().toNanos()) {
      if (options.fromBeginning() && end >= 0 && offset >= end) {
        break;
      }
      FetchResult r;
      try {
        r = client.fetch(options.stream(), shard, offset, options.maxBytes(),
            end < 0 || offset >= end ? 500 : 0).join();
      } catch (RuntimeException e) {
        System.err.println("consume: shard " + shard + " at offset " + offset + ": " + e.getMessage());
        Thread.sleep(200);
        continue;
      }
      if (offset < r.logStartOffset()) {
        offset = r.logStartOffset();
        continue;
      }
      synchronized (this) {
        for (FetchedRecord rec : r.records()) {
          records++;
          shardRecords++;
          bytes += rec.value().length;
          if (options.verify()) {
            verifier.accept(shard, rec.offset(), rec.value());
          }
        }
      }
      if (r.nextOffset() > offset) {
        offset = r.nextOffset();
        lastProgress = System.nanoTime();
      }
    }
    out.printf("shard %d: %d records, next offset %d, end %d%n", shard, shardRecords, offset, end);
  }

  private void print(Verifier.Report report, boolean withLedger) {
    out.printf("verify: %d records, %d corrupt, %d not from the load generator (ignored)%s%n", report.records(),
        report.corrupt(), report.foreign(), withLedger ? ", " + report.otherRuns() + " from other runs (ignored)" : "");
    report.corruptSample().forEach(s -> out.println("  corrupt: " + s));
    for (Verifier.ProducerReport p : report.producers()) {
      Map<String, Long> counts = new LinkedHashMap<>();
      counts.put("missing", p.missing());
      counts.put("duplicated", p.duplicated());
      counts.put("out of order", p.outOfOrder());
      if (withLedger) {
        counts.put("unexpected", p.unexpected());
      }
      StringBuilder line = new StringBuilder(String.format("  run %d producer %d: %d read", p.runId(),
          p.producer(), p.read()));
      counts.forEach((k, v) -> line.append(", ").append(v).append(' ').append(k));
      if (withLedger) {
        line.append(String.format(", uncertain %d present / %d absent", p.uncertainPresent(), p.uncertainAbsent()));
      }
      line.append(p.ok() ? "  OK" : "  FAILED");
      if (p.missing() > 0) {
        line.append(" (first missing: ").append(p.missingSample()).append(')');
      }
      out.println(line);
    }
    out.println(report.ok() ? "verify: OK" : "verify: FAILED");
  }
}
