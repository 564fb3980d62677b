package io.felix.broker.http;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.ControlState;
import io.felix.broker.control.ControlState.BrokerRecord;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.MoveState;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.ControlView;
import io.felix.broker.shard.ReplicaDigest;
import io.felix.broker.shard.ReplicaStatus;
import java.util.List;
import java.util.Map;

/** The admin API's JSON documents, rendered from the singleton's view (snake_case field names). */
final class AdminJson {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private AdminJson() {}

  /** @param underReplicated per broker, the under-replicated shards it is assigned to lead (none if missing) */
  static ArrayNode brokers(ControlView view, Map<Integer, Integer> underReplicated) {
    ArrayNode out = JSON.arrayNode();
    ControlState state = view.state();
    for (BrokerRecord b : state.brokers().values()) {
      ObjectNode node = out.addObject();
      node.put("id", b.id());
      if (b.zone().isEmpty()) {
        node.putNull("zone");
      } else {
        node.put("zone", b.zone());
      }
      node.put("state", !view.available().contains(b.id()) ? "down" : b.draining() ? "draining" : "live");
      if (b.maxShards() > 0) {
        node.put("max_shards", b.maxShards());
      } else {
        node.putNull("max_shards");
      }
      node.put("host", b.endpoint().host());
      node.put("client_address", b.endpoint().clientAddress());
      node.put("client_port", b.endpoint().clientPort());
      node.put("replication_port", b.endpoint().replicationPort());
      node.put("admin_port", b.endpoint().adminPort());
      node.put("leaders", state.leadersOn(b.id()));
      node.put("replicas", state.replicasOn(b.id()));
      node.put("under_replicated_shards", underReplicated.getOrDefault(b.id(), 0));
    }
    return out;
  }

  /** @param underReplicated per stream, its under-replicated shard numbers (none if missing) */
  static ArrayNode streams(List<StreamRecord> streams, Map<String, List<Integer>> underReplicated) {
    ArrayNode out = JSON.arrayNode();
    for (StreamRecord s : streams) {
      ArrayNode under = stream(out.addObject(), s).putArray("under_replicated_shards");
      underReplicated.getOrDefault(s.name(), List.of()).forEach(under::add);
    }
    return out;
  }

  private static ObjectNode stream(ObjectNode node, StreamRecord s) {
    node.put("name", s.name());
    node.put("shards", s.shards());
    node.put("replication_factor", s.replicationFactor());
    node.put("kind", s.config().forCache() ? "cache" : "stream");
    node.put("internal", InternalStreams.isInternal(s.name())); // kept by the brokers: listed, never changed
    ObjectNode config = node.putObject("config"); // the stream's own settings; null: the broker's default
    putOrNull(config, "retention_ms", s.config().retentionMs());
    putOrNull(config, "retention_bytes", s.config().retentionBytes());
    putOrNull(config, "segment_bytes", s.config().segmentBytes());
    return node;
  }

  private static void putOrNull(ObjectNode node, String field, Long value) {
    if (value == null) {
      node.putNull(field);
    } else {
      node.put(field, value);
    }
  }

  /**
   * @param commitOffsets each shard's commit offset as its leader reported it; a shard missing here is shown
   *     with {@code commit_offset: null} (its leader did not answer in time)
   * @param replicas each shard's replicas' answers by broker id: each shard shows every replica's role
   *     ({@code "failed"}, or null when it did not answer), the leader's in-sync set and whether it is
   *     under-replicated (see {@link UnderReplication})
   */
  static ObjectNode streamDetail(ControlState state, StreamRecord s, Map<Integer, Long> commitOffsets,
      Map<ShardId, Map<Integer, ReplicaStatus>> replicas) {
    ObjectNode node = stream(JSON.objectNode(), s);
    ArrayNode shards = node.putArray("shard_assignments");
    for (ShardAssignment a : state.shardsOf(s.name())) {
      ObjectNode shard = shards.addObject();
      shard.put("shard", a.id().shard());
      shard.put("leader", a.leader());
      a.replicas().forEach(shard.putArray("replicas")::add);
      ArrayNode learners = shard.putArray("learners");
      MoveRecord move = state.moves().get(a.id());
      if (move != null && move.staged()) {
        learners.add(move.to());
      }
      shard.put("epoch", a.leaderEpoch());
      Long commit = commitOffsets.get(a.id().shard());
      if (commit == null) {
        shard.putNull("commit_offset");
      } else {
        shard.put("commit_offset", commit);
      }
      Map<Integer, ReplicaStatus> answers = replicas.getOrDefault(a.id(), Map.of());
      ObjectNode states = shard.putObject("replica_states");
      a.replicas().forEach(r -> {
        ReplicaStatus status = answers.get(r);
        if (status == null) {
          states.putNull(Integer.toString(r));
        } else {
          states.put(Integer.toString(r), status.role().wireName());
        }
      });
      ArrayNode inSync = shard.putArray("in_sync");
      ReplicaStatus leader = answers.get(a.leader());
      putOrNull(shard, "log_start_offset", leader == null ? null : leader.logStartOffset());
      if (leader != null) {
        leader.inSync().forEach(inSync::add);
      }
      shard.put("under_replicated", UnderReplication.of(a, answers));
    }
    return node;
  }

  /**
   * GET /v1/streams/{name}/replica-digests: per shard, the leader's commit offset and each replica's digest below
   * it ({@code digest} as 8 hex digits), {@code short} with its log's bounds when its log ends below, or an
   * {@code error}; {@code equal} when every replica digested and all agree.
   */
  static ObjectNode replicaDigests(String stream, List<ReplicaDigests.ShardDigests> shards) {
    ObjectNode node = JSON.objectNode().put("stream", stream);
    ArrayNode out = node.putArray("shards");
    for (ReplicaDigests.ShardDigests s : shards) {
      ObjectNode shard = out.addObject();
      shard.put("shard", s.shard());
      shard.put("leader", s.leader());
      putOrNull(shard, "commit_offset", s.commitOffset());
      if (s.commitOffset() == null) {
        shard.put("error", "the leader (broker " + s.leader() + ") did not report its commit offset");
      }
      ArrayNode replicas = shard.putArray("replicas");
      s.replicas().forEach(r -> replicaDigest(replicas.addObject().put("broker", r.broker()), r));
      shard.put("equal", s.equal());
    }
    return node;
  }

  private static void replicaDigest(ObjectNode node, ReplicaDigests.ReplicaAnswer answer) {
    ReplicaDigest d = answer.digest();
    if (d == null) {
      node.put("error", answer.unanswered());
      return;
    }
    switch (d.outcome()) {
      case DIGESTED -> node.put("log_start", d.digest().logStartOffset()).put("log_end", d.digest().logEndOffset())
          .put("digested_to", d.digest().digestedTo()).put("batches", d.digest().batches())
          .put("digest", String.format("%08x", d.digest().crc32c()));
      case SHORT -> node.put("short", true).put("log_start", d.digest().logStartOffset())
          .put("log_end", d.digest().logEndOffset());
      case NOT_HOSTED, FAILED, UNREADABLE -> node.put("error", d.problem());
    }
  }

  static ObjectNode placement(ControlView view) {
    ObjectNode node = JSON.objectNode();
    node.put("strategy", view.strategy());
    node.put("paused", view.state().paused());
    node.put("max_concurrent_moves", view.maxConcurrentMoves());
    if (view.maxMovesPerBroker() > 0) {
      node.put("max_moves_per_broker", view.maxMovesPerBroker());
    } else {
      node.putNull("max_moves_per_broker");
    }
    node.put("placement_interval_ms", view.placementIntervalMillis());
    node.put("moves_in_flight", view.state().moves().size());
    ObjectNode pass = node.putObject("last_pass");
    pass.put("at_ms", view.lastPass().atMillis());
    pass.put("trigger", view.lastPass().trigger().description());
    view.lastPass().planned().forEach(pass.putArray("planned")::add);
    view.lastPass().leaderless().forEach(pass.putArray("leaderless")::add);
    return node;
  }

  /** Moves in flight, then at most {@code recentKept} finished ones, newest first. */
  static ObjectNode moves(ControlState state, long nowMillis, int recentKept) {
    ObjectNode node = JSON.objectNode();
    ArrayNode inFlight = node.putArray("in_flight");
    state.moves().values().forEach(m -> move(inFlight.addObject(), m, nowMillis));
    ArrayNode recent = node.putArray("recent");
    int oldest = Math.max(0, state.recentMoves().size() - recentKept);
    for (int i = state.recentMoves().size() - 1; i >= oldest; i--) {
      move(recent.addObject(), state.recentMoves().get(i), nowMillis);
    }
    return node;
  }

  private static void move(ObjectNode node, MoveRecord m, long nowMillis) {
    node.put("id", m.moveId());
    node.put("stream", m.shard().stream());
    node.put("shard", m.shard().shard());
    node.put("from", m.from());
    node.put("to", m.to());
    node.put("staged", m.staged());
    node.put("reason", m.reason());
    boolean inFlight = m.state() == MoveState.IN_FLIGHT;
    node.put("state", inFlight ? (m.fenceEpoch() > 0 ? "catching-up-fenced" : "copying") : m.state().wireName());
    node.put("started_at_ms", m.startedAtMillis());
    node.put("duration_ms", (inFlight ? nowMillis : m.endedAtMillis()) - m.startedAtMillis());
    if (!m.detail().isEmpty()) {
      node.put("detail", m.detail());
    }
  }

  static ObjectNode message(String text) {
    return JSON.objectNode().put("message", text);
  }

  /** An error answer of the given HTTP status: {@code {"error": text, "code": kind}} (see {@link ApiError}). */
  static ObjectNode error(int status, String text) {
    return JSON.objectNode().put("error", text).put("code", ApiError.of(status).code());
  }
}
