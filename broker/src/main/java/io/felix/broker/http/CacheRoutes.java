package io.felix.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementController;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * POST, GET and DELETE /v1/caches: a cache is a group of shards placed, replicated and led exactly like a stream's
 * (it is one in the placement singleton, marked by its {@link CacheConfig}), so streams and caches share one name
 * space: a cache cannot take a stream's name, nor a stream a cache's. Its entries are never deleted by time or size
 * retention (only by their TTL), so a cache is created with retention off.
 */
final class CacheRoutes extends AllDirectives {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private final AdminRoutes admin;
  private final AdminRequests requests;
  private final AdminRoutes.CommitOffsets commitOffsets;

  CacheRoutes(AdminRoutes admin, AdminRequests requests, AdminRoutes.CommitOffsets commitOffsets) {
    this.admin = admin;
    this.requests = requests;
    this.commitOffsets = commitOffsets;
  }

  Route routes() {
    return concat(
        path("caches", () -> concat(
            get(() -> requests.withView(view -> requests.ok(list(view)))),
            post(() -> requests.body(this::create)))),
        path(PathMatchers.segment("caches").slash(PathMatchers.segment()), name -> concat(
            get(() -> withCache(name, cache -> describe(cache))),
            delete(() -> withCache(name, cache -> requests.command(StatusCodes.NO_CONTENT,
                r -> new PlacementController.DeleteStream(name, r)))))));
  }

  /** POST /v1/caches {"name", "shards", "replication_factor", "default_ttl_ms"}. */
  private Route create(JsonNode body) {
    AdminRequests.onlyFields(body, "name", "shards", "replication_factor", "default_ttl_ms");
    String name = AdminRequests.text(body, "name");
    int shards = AdminRequests.integer(body, "shards");
    Integer replicationFactor = body.has("replication_factor") ? AdminRequests.integer(body, "replication_factor") : null;
    Long ttl = AdminRequests.optionalLong(body, "default_ttl_ms");
    if (ttl != null && ttl < 0) {
      throw new AdminRequests.BadField("default_ttl_ms: must be 0 (no expiry) or more, got " + ttl);
    }
    // Retention would drop live entries: a cache's log is bounded by compaction and TTL instead.
    StreamConfig config = new StreamConfig(-1L, -1L, null, new CacheConfig(ttl == null ? 0 : ttl));
    return admin.create(name, shards, replicationFactor, config);
  }

  private Route withCache(String name, Function<StreamRecord, Route> handler) {
    return requests.withView(view -> {
      StreamRecord s = view.state().streams().get(name);
      if (s == null || !s.config().forCache() || InternalStreams.isInternal(name)) {
        return requests.error(StatusCodes.NOT_FOUND, "cache '" + name + "' does not exist"
            + (s != null ? " ('" + name + "' is a stream)" : ""));
      }
      return handler.apply(s);
    });
  }

  private Route describe(StreamRecord cache) {
    return requests.withView(view -> onSuccess(commitOffsets.of(view.state().table(), cache.name())
        .exceptionally(failure -> Map.of()), offsets -> {
          ObjectNode node = AdminJson.streamDetail(view.state(), cache, offsets, Map.of());
          node.put("default_ttl_ms", cache.config().cache().defaultTtlMs());
          return requests.ok(node);
        }));
  }

  private static ArrayNode list(ControlView view) {
    ArrayNode out = JSON.arrayNode();
    view.state().streams().values().stream().filter(s -> s.config().forCache() && !InternalStreams.isInternal(s.name()))
        .forEach(s -> out.addObject()
        .put("name", s.name()).put("shards", s.shards()).put("replication_factor", s.replicationFactor())
        .put("default_ttl_ms", s.config().cache().defaultTtlMs()));
    return out;
  }
}
