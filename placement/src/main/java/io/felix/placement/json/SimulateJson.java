package io.felix.placement.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.placement.Assignment;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.LeaderCounts;
import io.felix.placement.Plan;
import io.felix.placement.SimulatedStep;
import io.felix.placement.SimulationResult;
import io.felix.placement.Step;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The JSON of {@code felix-placement simulate} and {@code POST /v1/placement/simulate}: a cluster layout in, a
 * simulation result out. Reading is strict: a missing required field, a wrong type or an unknown field is an
 * {@link InvalidLayoutException} naming its path (for example {@code brokers[2].state}); nothing is guessed.
 *
 * <pre>
 * in:  {"brokers": [{"id", "zone"?, "max_shards"?, "state"?}], "groups": [{"name", "kind"?, "shards",
 *       "replication_factor"}], "assignments"?: [{"group", "shard", "leader", "replicas", "in_sync"?}],
 *       "moves_in_flight"?: [{"group", "shard", "from", "to"}], "settings"?: {"strategy", "max_concurrent_moves",
 *       "max_moves_per_broker", "paused"}}
 * out: {"steps": [{"pass", "action", "reason", "group", "shard", "from", "to", "leader", "replicas"}],
 *       "final": {"assignments": [...]}, "leaders": {"total": {"0": 21}, "groups": {"g": {"0": 4}}},
 *       "passes", "converged"}
 * </pre>
 *
 * Defaults: {@code state} live, {@code kind} stream, settings as {@code PlacementSettings.DEFAULT} field by field.
 * Thread-safe: the mapper is only used for tree reading and writing.
 */
public final class SimulateJson {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private SimulateJson() {}

  /** Parses a layout; any problem, JSON syntax included, is an {@link InvalidLayoutException}. */
  public static ClusterSnapshot readSnapshot(String json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      String reason = e.getOriginalMessage().replaceAll("\\s*\\(start marker at .*$", "").replaceAll("\\R.*", "");
      // a broken constraint (nesting too deep, a number too long) comes without a location
      String where = e.getLocation() == null ? ""
          : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
      throw new InvalidLayoutException("not valid JSON: " + reason + where);
    }
    if (root == null || root.isMissingNode()) {
      throw new InvalidLayoutException("empty input: expected a JSON object with brokers and groups");
    }
    return LayoutReader.read(root);
  }

  public static ClusterSnapshot readSnapshot(JsonNode root) {
    return LayoutReader.read(root);
  }

  /** The layout in the input form (moves in flight and settings included), e.g. to save a simulation's result. */
  public static ObjectNode snapshotToJson(ClusterSnapshot snapshot) {
    return LayoutWriter.snapshot(snapshot);
  }

  public static ObjectNode resultToJson(SimulationResult result) {
    ObjectNode out = MAPPER.createObjectNode();
    ArrayNode steps = out.putArray("steps");
    for (SimulatedStep s : result.steps()) {
      ObjectNode step = steps.addObject().put("pass", s.pass());
      step.setAll(stepToJson(s.step()));
    }
    ObjectNode finalLayout = out.putObject("final");
    finalLayout.set("assignments", LayoutWriter.assignments(result.finalSnapshot().assignments()));
    out.set("leaders", leadersToJson(result.leaders()));
    out.put("passes", result.passes());
    out.put("converged", result.converged());
    return out;
  }

  /** One pass's plan: {@code {"steps": [...], "leaderless": [{"group", "shard"}]}}. */
  public static ObjectNode planToJson(Plan plan) {
    ObjectNode out = MAPPER.createObjectNode();
    ArrayNode steps = out.putArray("steps");
    plan.steps().forEach(step -> steps.add(stepToJson(step)));
    ArrayNode leaderless = out.putArray("leaderless");
    plan.leaderless().forEach(ref -> leaderless.addObject().put("group", ref.group()).put("shard", ref.shard()));
    return out;
  }

  public static ObjectNode stepToJson(Step step) {
    ObjectNode node = MAPPER.createObjectNode();
    node.put("action", step.action().wireName());
    node.put("reason", step.reason().wireName());
    node.put("group", step.group());
    node.put("shard", step.shard());
    if (step.from() == null) {
      node.putNull("from");
    } else {
      node.put("from", step.from());
    }
    node.put("to", step.to());
    if (step.leader() == Assignment.NO_LEADER) {
      node.putNull("leader");
    } else {
      node.put("leader", step.leader());
    }
    ArrayNode replicas = node.putArray("replicas");
    step.replicas().forEach(replicas::add);
    return node;
  }

  public static ObjectNode leadersToJson(LeaderCounts leaders) {
    ObjectNode node = MAPPER.createObjectNode();
    node.set("total", counts(leaders.total()));
    ObjectNode groups = node.putObject("groups");
    for (Map.Entry<String, SortedMap<Integer, Integer>> e : leaders.groups().entrySet()) {
      groups.set(e.getKey(), counts(e.getValue()));
    }
    return node;
  }

  public static String write(JsonNode node) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree failed to serialize", e);
    }
  }

  static ObjectMapper mapper() {
    return MAPPER;
  }

  private static ObjectNode counts(SortedMap<Integer, Integer> counts) {
    ObjectNode node = MAPPER.createObjectNode();
    counts.forEach((broker, count) -> node.put(String.valueOf(broker), count));
    return node;
  }

  static ArrayNode ids(List<Integer> ids) {
    ArrayNode array = MAPPER.createArrayNode();
    ids.forEach(array::add);
    return array;
  }

}
