package io.felix.loadgen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * Who leads which shard, read from {@code GET /v1/streams/{name}}: per stream, shard number to leader broker.
 * Formats counts as {@code GET /v1/replication-status} prints them ({@code perf-quorum:0=1,1=1,2=10}).
 */
record Leaders(Map<String, Map<Integer, Integer>> byStream, List<Integer> brokers) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static Leaders read(AdminClient admin, Collection<String> streams, List<Integer> brokers)
      throws IOException, InterruptedException {
    Map<String, Map<Integer, Integer>> byStream = new TreeMap<>();
    for (String stream : streams) {
      Map<Integer, Integer> shards = new TreeMap<>();
      for (JsonNode shard : JSON.readTree(admin.getOk("/v1/streams/" + stream)).get("shard_assignments")) {
        JsonNode leader = shard.get("leader");
        shards.put(shard.get("shard").asInt(), leader == null || leader.isNull() ? -1 : leader.asInt());
      }
      byStream.put(stream, shards);
    }
    return new Leaders(byStream, List.copyOf(brokers));
  }

  boolean allLed() {
    return byStream.values().stream().allMatch(m -> m.values().stream().allMatch(l -> l >= 0));
  }

  /** Leaders per broker of one stream, every broker present even at 0. */
  Map<Integer, Integer> counts(String stream) {
    Map<Integer, Integer> out = zeroes();
    byStream.getOrDefault(stream, Map.of()).values().forEach(l -> out.computeIfPresent(l, (b, n) -> n + 1));
    return out;
  }

  Map<Integer, Integer> totals() {
    Map<Integer, Integer> out = zeroes();
    byStream.keySet().forEach(s -> counts(s).forEach((b, n) -> out.merge(b, n, Integer::sum)));
    return out;
  }

  /** The first shard of any stream that {@code broker} leads, in stream then shard order. */
  Optional<Map.Entry<String, Integer>> aShardLedBy(int broker, Collection<String> streams) {
    for (String s : streams) {
      for (var e : byStream.getOrDefault(s, Map.of()).entrySet()) {
        if (e.getValue() == broker) {
          return Optional.of(Map.entry(s, e.getKey()));
        }
      }
    }
    return Optional.empty();
  }

  static String format(Map<Integer, Integer> counts) {
    StringJoiner j = new StringJoiner(",");
    counts.forEach((b, n) -> j.add(b + "=" + n));
    return j.toString();
  }

  private Map<Integer, Integer> zeroes() {
    Map<Integer, Integer> out = new TreeMap<>();
    brokers.forEach(b -> out.put(b, 0));
    return out;
  }
}
