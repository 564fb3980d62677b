package io.felix.placement.json;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.placement.Assignment;
import io.felix.placement.Broker;
import io.felix.placement.BrokerState;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.GroupKind;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.MoveInFlight;
import io.felix.placement.PlacementSettings;
import io.felix.placement.Strategy;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Reads the simulate input form strictly; every error names the JSON path it found. */
final class LayoutReader {

  private LayoutReader() {}

  static ClusterSnapshot read(JsonNode root) {
    object(root, "input", Set.of("brokers", "groups", "assignments", "moves_in_flight", "settings"));
    List<Broker> brokers = new ArrayList<>();
    JsonNode brokersNode = required(root, "brokers", "input");
    int i = 0;
    for (JsonNode node : array(brokersNode, "brokers")) {
      String at = "brokers[" + i++ + "]";
      object(node, at, Set.of("id", "zone", "max_shards", "state"));
      String state = optionalText(node, "state", at);
      brokers.add(at(at, () -> new Broker(integer(required(node, "id", at), at + ".id"),
          optionalText(node, "zone", at), optionalInteger(node, "max_shards", at),
          state == null ? BrokerState.LIVE : BrokerState.fromWireName(state))));
    }
    List<Group> groups = new ArrayList<>();
    i = 0;
    for (JsonNode node : array(required(root, "groups", "input"), "groups")) {
      String at = "groups[" + i++ + "]";
      object(node, at, Set.of("name", "kind", "shards", "replication_factor"));
      String kind = optionalText(node, "kind", at);
      groups.add(at(at, () -> new Group(text(required(node, "name", at), at + ".name"),
          kind == null ? GroupKind.STREAM : GroupKind.fromWireName(kind),
          integer(required(node, "shards", at), at + ".shards"),
          integer(required(node, "replication_factor", at), at + ".replication_factor"))));
    }
    List<Assignment> assignments = new ArrayList<>();
    i = 0;
    for (JsonNode node : array(root.get("assignments"), "assignments")) {
      String at = "assignments[" + i++ + "]";
      object(node, at, Set.of("group", "shard", "leader", "replicas", "in_sync"));
      Integer leader = optionalInteger(node, "leader", at);
      JsonNode inSync = node.get("in_sync");
      assignments.add(at(at, () -> new Assignment(text(required(node, "group", at), at + ".group"),
          integer(required(node, "shard", at), at + ".shard"), leader == null ? Assignment.NO_LEADER : leader,
          integers(required(node, "replicas", at), at + ".replicas"),
          inSync == null || inSync.isNull() ? null : integers(inSync, at + ".in_sync"))));
    }
    List<MoveInFlight> moves = new ArrayList<>();
    i = 0;
    for (JsonNode node : array(root.get("moves_in_flight"), "moves_in_flight")) {
      String at = "moves_in_flight[" + i++ + "]";
      object(node, at, Set.of("group", "shard", "from", "to"));
      moves.add(at(at, () -> new MoveInFlight(text(required(node, "group", at), at + ".group"),
          integer(required(node, "shard", at), at + ".shard"), integer(required(node, "from", at), at + ".from"),
          integer(required(node, "to", at), at + ".to"))));
    }
    PlacementSettings settings = settings(root.get("settings"));
    return new ClusterSnapshot(brokers, groups, assignments, moves, settings);
  }

  private static PlacementSettings settings(JsonNode node) {
    PlacementSettings d = PlacementSettings.DEFAULT;
    if (node == null || node.isNull()) {
      return d;
    }
    String at = "settings";
    object(node, at, Set.of("strategy", "max_concurrent_moves", "max_moves_per_broker", "paused"));
    String strategy = optionalText(node, "strategy", at);
    Integer concurrent = optionalInteger(node, "max_concurrent_moves", at);
    Integer perBroker = optionalInteger(node, "max_moves_per_broker", at);
    JsonNode paused = node.get("paused");
    if (paused != null && !paused.isNull() && !paused.isBoolean()) {
      throw new InvalidLayoutException("settings.paused: expected true or false, got " + paused);
    }
    return new PlacementSettings(strategy == null ? d.strategy() : Strategy.fromWireName(strategy),
        concurrent == null ? d.maxConcurrentMoves() : concurrent, perBroker,
        paused != null && paused.isBoolean() ? paused.booleanValue() : d.paused());
  }

  private interface Build<T> {
    T get();
  }

  /** Prefixes a model validation error with the JSON path of the element. */
  private static <T> T at(String at, Build<T> build) {
    try {
      return build.get();
    } catch (InvalidLayoutException e) {
      throw e.getMessage().startsWith(at) ? e : new InvalidLayoutException(at + ": " + e.getMessage());
    }
  }

  private static void object(JsonNode node, String at, Set<String> fields) {
    if (node == null || !node.isObject()) {
      throw new InvalidLayoutException(at + ": expected a JSON object, got " + describe(node));
    }
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!fields.contains(name)) {
        throw new InvalidLayoutException(at + ": unknown field '" + name + "' (expected one of "
            + fields.stream().sorted().toList() + ")");
      }
    }
  }

  private static Iterable<JsonNode> array(JsonNode node, String at) {
    if (node == null || node.isNull()) {
      return List.of();
    }
    if (!node.isArray()) {
      throw new InvalidLayoutException(at + ": expected an array, got " + describe(node));
    }
    return node;
  }

  private static JsonNode required(JsonNode parent, String field, String at) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      throw new InvalidLayoutException(("input".equals(at) ? "" : at + ": ") + "missing required field '"
          + field + "'");
    }
    return node;
  }

  private static int integer(JsonNode node, String at) {
    if (!node.isIntegralNumber() || !node.canConvertToInt()) {
      throw new InvalidLayoutException(at + ": expected an integer, got " + describe(node));
    }
    return node.intValue();
  }

  private static Integer optionalInteger(JsonNode parent, String field, String at) {
    JsonNode node = parent.get(field);
    return node == null || node.isNull() ? null : integer(node, at + "." + field);
  }

  private static String text(JsonNode node, String at) {
    if (!node.isTextual()) {
      throw new InvalidLayoutException(at + ": expected a string, got " + describe(node));
    }
    return node.textValue();
  }

  private static String optionalText(JsonNode parent, String field, String at) {
    JsonNode node = parent.get(field);
    return node == null || node.isNull() ? null : text(node, at + "." + field);
  }

  private static List<Integer> integers(JsonNode node, String at) {
    if (!node.isArray()) {
      throw new InvalidLayoutException(at + ": expected an array of broker ids, got " + describe(node));
    }
    List<Integer> ids = new ArrayList<>();
    int i = 0;
    for (JsonNode id : node) {
      ids.add(integer(id, at + "[" + i++ + "]"));
    }
    return ids;
  }

  private static String describe(JsonNode node) {
    if (node == null) {
      return "nothing";
    }
    String text = node.toString();
    return text.length() > 40 ? text.substring(0, 40) + "..." : text;
  }
}
