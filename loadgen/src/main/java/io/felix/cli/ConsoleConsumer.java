package io.felix.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.loadgen.StreamCheck;
import io.felix.protocol.client.Header;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The console consumer of {@code felix consume STREAM}: fetches every shard at once, round after round, and prints
 * the committed records in shard order within each round. Without {@code --follow} it stops once every shard is
 * read up to the commit offset it had when reading started.
 */
final class ConsoleConsumer {
  private static final int MAX_BYTES = 1024 * 1024;
  /** How long a fetch waits on the broker for new records when following. */
  private static final int FOLLOW_WAIT_MS = 500;

  private final ConsumeCommand command;
  private final PrintWriter out;
  private long printed;

  ConsoleConsumer(ConsumeCommand command) {
    this.command = command;
    this.out = command.spec.commandLine().getOut();
  }

  int run() throws CommandFailure, InterruptedException {
    try (FelixClient client = command.client()) {
      List<Integer> shards;
      try {
        shards = StreamCheck.shards(client, command.stream);
      } catch (IllegalStateException e) {
        throw new CommandFailure(e.getMessage());
      }
      if (command.shard != null) {
        if (!shards.contains(command.shard)) {
          throw new CommandFailure("--shard: stream " + command.stream + " has shards 0.." + (shards.size() - 1)
              + ", got " + command.shard);
        }
        shards = List.of(command.shard);
      }
      Map<Integer, Long> end = new LinkedHashMap<>();
      Map<Integer, Long> next = new LinkedHashMap<>();
      for (int shard : shards) {
        long commit = fetch(client, shard, 0, 0).commitOffset();
        end.put(shard, commit);
        next.put(shard, command.fromBeginning ? 0 : commit);
      }
      while (!done(next, end)) {
        Map<Integer, CompletableFuture<FetchResult>> round = new LinkedHashMap<>();
        for (int shard : shards) {
          long offset = next.get(shard);
          if (command.follow || offset < end.get(shard)) {
            round.put(shard, client.fetch(command.stream, shard, offset, MAX_BYTES,
                command.follow ? FOLLOW_WAIT_MS : 0));
          }
        }
        for (Map.Entry<Integer, CompletableFuture<FetchResult>> f : round.entrySet()) {
          FetchResult r = join(f.getValue(), f.getKey());
          long offset = next.get(f.getKey());
          if (offset < r.logStartOffset()) {
            next.put(f.getKey(), r.logStartOffset());
            continue;
          }
          for (FetchedRecord rec : r.records()) {
            if (!command.follow && rec.offset() >= end.get(f.getKey())) {
              break;
            }
            print(f.getKey(), rec);
            if (command.max != null && printed >= command.max) {
              return finish();
            }
          }
          next.put(f.getKey(), Math.max(offset, r.nextOffset()));
        }
      }
    }
    return finish();
  }

  private boolean done(Map<Integer, Long> next, Map<Integer, Long> end) {
    return !command.follow && next.entrySet().stream().allMatch(e -> e.getValue() >= end.get(e.getKey()));
  }

  private int finish() {
    out.flush();
    String hint = printed == 0 && !command.fromBeginning && !command.follow
        ? " (reading started at the end; add --from-beginning or --follow)" : "";
    command.spec.commandLine().getErr().println("read " + printed + " records from " + command.stream + hint);
    return 0;
  }

  private FetchResult fetch(FelixClient client, int shard, long offset, int waitMs)
      throws CommandFailure {
    return join(client.fetch(command.stream, shard, offset, 1024, waitMs), shard);
  }

  private FetchResult join(CompletableFuture<FetchResult> fetch, int shard) throws CommandFailure {
    try {
      return fetch.join();
    } catch (CompletionException e) {
      throw new CommandFailure("shard " + shard + ": " + FelixException.from(e).getMessage());
    }
  }

  private void print(int shard, FetchedRecord rec) {
    printed++;
    String key = rec.key() == null ? "" : new String(rec.key(), StandardCharsets.UTF_8);
    String value = new String(rec.value(), StandardCharsets.UTF_8);
    if (command.format == Output.Format.json) {
      ObjectNode node = Admin.JSON.createObjectNode().put("shard", shard).put("offset", rec.offset())
          .put("key", key).put("value", value).put("timestamp_ms", rec.timestampMs());
      ObjectNode headers = node.putObject("headers");
      for (Header h : rec.headers()) {
        headers.put(h.getKey(), h.getValue().toStringUtf8());
      }
      out.println(node);
    } else {
      out.println(shard + "\t" + rec.offset() + "\t" + key + "\t" + value);
    }
  }
}
