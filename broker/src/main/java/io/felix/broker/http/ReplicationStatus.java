package io.felix.broker.http;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.control.ControlState;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Leaders per broker for every stream, in the form docs/placement.md uses: one line per stream,
 * {@code perf-quorum:0=1,1=1,2=10} (every known broker, in id order, zeros included, so a stream piled on one
 * broker shows at a glance), then {@code total:0=21,1=21,2=19}. Shards without a leader are not counted.
 */
public final class ReplicationStatus {

  private final SortedMap<String, SortedMap<Integer, Integer>> perStream = new TreeMap<>();
  private final SortedMap<Integer, Integer> total = new TreeMap<>();

  public ReplicationStatus(ControlState state) {
    for (int broker : state.brokers().keySet()) {
      total.put(broker, 0);
    }
    for (String stream : state.streams().keySet()) {
      perStream.put(stream, new TreeMap<>(total));
    }
    for (ShardAssignment a : state.shards().values()) {
      if (a.leader() == ShardAssignment.NO_LEADER) {
        continue;
      }
      perStream.get(a.id().stream()).merge(a.leader(), 1, Integer::sum);
      total.merge(a.leader(), 1, Integer::sum);
    }
  }

  public SortedMap<Integer, Integer> leaders(String stream) {
    return perStream.get(stream);
  }

  public SortedMap<Integer, Integer> total() {
    return total;
  }

  public String text() {
    StringBuilder out = new StringBuilder();
    perStream.forEach((stream, counts) -> out.append(line(stream, counts)).append('\n'));
    out.append(line("total", total)).append('\n');
    return out.toString();
  }

  public ObjectNode json() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    ObjectNode streams = root.putObject("streams");
    perStream.forEach((stream, counts) -> counts(streams.putObject(stream), counts));
    counts(root.putObject("total"), total);
    return root;
  }

  private static void counts(ObjectNode node, Map<Integer, Integer> counts) {
    counts.forEach((broker, n) -> node.put(String.valueOf(broker), n));
  }

  static String line(String name, Map<Integer, Integer> counts) {
    StringBuilder line = new StringBuilder(name).append(':');
    String sep = "";
    for (Map.Entry<Integer, Integer> e : counts.entrySet()) {
      line.append(sep).append(e.getKey()).append('=').append(e.getValue());
      sep = ",";
    }
    return line.toString();
  }
}
