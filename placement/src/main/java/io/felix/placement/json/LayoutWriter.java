package io.felix.placement.json;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.placement.Assignment;
import io.felix.placement.Broker;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.Group;
import io.felix.placement.MoveInFlight;
import io.felix.placement.PlacementSettings;
import java.util.List;

/** Writes a layout in the simulate input form. */
final class LayoutWriter {

  private LayoutWriter() {}

  static ObjectNode snapshot(ClusterSnapshot snapshot) {
    ObjectNode root = SimulateJson.mapper().createObjectNode();
    ArrayNode brokers = root.putArray("brokers");
    for (Broker b : snapshot.brokers()) {
      ObjectNode node = brokers.addObject().put("id", b.id());
      node.put("zone", b.zone());
      node.put("max_shards", b.maxShards());
      node.put("state", b.state().wireName());
    }
    ArrayNode groups = root.putArray("groups");
    for (Group g : snapshot.groups()) {
      groups.addObject().put("name", g.name()).put("kind", g.kind().wireName()).put("shards", g.shards())
          .put("replication_factor", g.replicationFactor());
    }
    root.set("assignments", assignments(snapshot.assignments()));
    ArrayNode moves = root.putArray("moves_in_flight");
    for (MoveInFlight m : snapshot.movesInFlight()) {
      moves.addObject().put("group", m.group()).put("shard", m.shard()).put("from", m.from()).put("to", m.to());
    }
    PlacementSettings s = snapshot.settings();
    root.putObject("settings").put("strategy", s.strategy().wireName())
        .put("max_concurrent_moves", s.maxConcurrentMoves()).put("max_moves_per_broker", s.maxMovesPerBroker())
        .put("paused", s.paused());
    return root;
  }

  static ArrayNode assignments(List<Assignment> assignments) {
    ArrayNode array = SimulateJson.mapper().createArrayNode();
    for (Assignment a : assignments) {
      ObjectNode node = array.addObject().put("group", a.group()).put("shard", a.shard());
      if (a.leader() == Assignment.NO_LEADER) {
        node.putNull("leader");
      } else {
        node.put("leader", a.leader());
      }
      node.set("replicas", SimulateJson.ids(a.replicas()));
      if (!a.inSync().equals(a.replicas())) {
        node.set("in_sync", SimulateJson.ids(a.inSync()));
      }
    }
    return array;
  }
}
