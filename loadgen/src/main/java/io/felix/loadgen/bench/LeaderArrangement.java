package io.felix.loadgen.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * Brings the leaders of some streams to a target count per broker with manual leadership transfers
 * ({@code POST /v1/shard-moves}), one at a time: from a broker above its target to one below it, waiting for
 * each to finish. Used while placement is paused to build a benchmark's starting layout.
 */
final class LeaderArrangement {

  private static final ObjectMapper JSON = new ObjectMapper();

  private LeaderArrangement() {}

  /** Returns the number of moves made. */
  static int arrange(AdminClient admin, Collection<String> streams, List<Integer> ids, Map<Integer, Integer> target)
      throws IOException, InterruptedException {
    int moves = 0;
    while (true) {
      Leaders now = PlacementBench.awaitLed(admin, streams, ids);
      Map<Integer, Integer> counts = now.totals();
      Integer from = ids.stream().filter(b -> counts.get(b) > target.get(b)).findFirst().orElse(null);
      Integer to = ids.stream().filter(b -> counts.get(b) < target.get(b)).findFirst().orElse(null);
      if (from == null || to == null) {
        return moves;
      }
      var shard = now.aShardLedBy(from, streams).orElseThrow();
      String body = JSON.createObjectNode().put("stream", shard.getKey()).put("shard", shard.getValue())
          .put("to", to).toString();
      admin.postOk("/v1/shard-moves", body);
      awaitLeader(admin, shard.getKey(), shard.getValue(), to, streams, ids);
      moves++;
    }
  }

  private static void awaitLeader(AdminClient admin, String stream, int shard, int leader, Collection<String> streams,
      List<Integer> ids) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    while (Leaders.read(admin, List.of(stream), ids).byStream().get(stream).get(shard) != leader) {
      if (System.nanoTime() > deadline) {
        throw new IOException("move of " + stream + "/" + shard + " to broker " + leader + " did not finish in 90 s");
      }
      Thread.sleep(100);
    }
  }
}
