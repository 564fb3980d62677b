package io.felix.loadgen;

import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code consume}: reads every shard of a stream, one shard after another, and with {@code --verify} checks
 * every record ({@link Verifier}).
 *
 * <p>Where reading ends: with {@code --from-beginning}, each shard is read from offset 0 up to the commit
 * offset its first fetch reported (the end when reading started), or until {@code --idle} passes without
 * progress. Without it, each shard is read from that commit offset on until {@code --idle} passes without new
 * records.
 */
final class ConsumeRun {
  private final ConsumeOptions options;
  private final PrintStream out;
  private final Verifier verifier = new Verifier();
  private long records;
  private long bytes;

  ConsumeRun(ConsumeOptions options, PrintStream out) {
    this.options = options;
    this.out = out;
  }

  int run() throws IOException, InterruptedException {
    Summary expected = options.expect() == null ? null : Summary.read(options.expect());
    if (expected != null && !expected.stream().equals(options.stream())) {
      System.err.println("consume: --expect describes stream " + expected.stream() + ", not " + options.stream());
      return 2;
    }
    long start = System.nanoTime();
    try (FelixClient client = new FelixClient(ClientSettings.builder(options.bootstrap())
        .mode(options.mode()).build())) {
      List<Integer> shards;
      try {
        shards = StreamCheck.shards(client, options.stream());
      } catch (IllegalStateException e) {
        System.err.println("consume: " + e.getMessage());
        return 1;
      }
      for (int shard : shards) {
        readShard(client, shard);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    out.printf("consume: read %d records (%.2f MB) from %s in %.1f s%n", records, bytes / 1e6,
        options.stream(), seconds);
    if (!options.verify()) {
      return 0;
    }
    Verifier.Report report = verifier.report(expected);
    print(report, expected != null);
    if (options.json() != null) {
      Summary.JSON.writeValue(options.json().toFile(), report);
    }
    return report.ok() ? 0 : 1;
  }

  private void readShard(FelixClient client, int shard) throws InterruptedException {
    long offset = 0;
    long end = -1;
    long lastProgress = System.nanoTime();
    long shardRecords = 0;
    while (System.nanoTime() - lastProgress < options.idle().toNanos()) {
      FetchResult r;
      try {
        r = client.fetch(options.stream(), shard, offset, options.maxBytes(),
            end < 0 || offset >= end ? 500 : 0).join();
      } catch (RuntimeException e) {
        System.err.println("consume: shard " + shard + " at offset " + offset + ": " + e.getMessage());
        Thread.sleep(200);
        continue;
      }
      if (end < 0) {
        end = r.commitOffset();
        if (!options.fromBeginning()) {
          offset = end;
          continue;
        }
        offset = Math.max(offset, r.logStartOffset());
        if (r.logStartOffset() > 0) {
          continue;
        }
      }
      for (FetchedRecord rec : r.records()) {
        records++;
        shardRecords++;
        bytes += rec.value().length;
        if (options.verify()) {
          verifier.accept(shard, rec.offset(), rec.value());
        }
      }
      if (r.nextOffset() > offset) {
        offset = r.nextOffset();
        lastProgress = System.nanoTime();
      }
      if (options.fromBeginning() && offset >= end) {
        break;
      }
    }
    out.printf("shard %d: %d records, next offset %d, end %d%n", shard, shardRecords, offset, end);
  }

  private void print(Verifier.Report report, boolean withLedger) {
    out.printf("verify: %d records, %d corrupt%s%n", report.records(), report.corrupt(),
        withLedger ? ", " + report.otherRuns() + " from other runs (ignored)" : "");
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
