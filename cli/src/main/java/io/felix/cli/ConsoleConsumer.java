package io.felix.cli;

import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import io.felix.loadgen.StreamCheck;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The console consumer of {@code felix consume STREAM} outside a group: fetches every shard at once, round after
 * round, and prints the committed records in shard order within each round. Without {@code --follow} it stops once
 * every shard is read up to the commit offset it had when reading started. Records are printed by
 * {@link RecordPrinter}.
 */
final class ConsoleConsumer {
  private static final int MAX_BYTES = 1024 * 1024;
  /** How long a fetch waits on the broker for new records when following. */
  private static final int FOLLOW_WAIT_MS = 500;

  private final ConsumeCommand command;
  private final RecordPrinter printer;

  ConsoleConsumer(ConsumeCommand command) {
    this.command = command;
    this.printer = new RecordPrinter(command);
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
        next.put(shard, switch (command.start().kind()) {
          case EARLIEST -> 0L;
          case LATEST -> commit;
          case OFFSET -> command.start().offset();
        });
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
            printer.print(f.getKey(), rec);
            if (printer.reachedMax()) {
              return printer.finish();
            }
          }
          next.put(f.getKey(), Math.max(offset, r.nextOffset()));
        }
      }
    }
    return printer.finish();
  }

  private boolean done(Map<Integer, Long> next, Map<Integer, Long> end) {
    return !command.follow && next.entrySet().stream().allMatch(e -> e.getValue() >= end.get(e.getKey()));
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
}
