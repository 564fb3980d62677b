package io.felix.broker.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.ControlSettings;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementController;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.metrics.MetricsRoute;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * The admin HTTP API, served by every broker; commands go to the placement singleton through its proxy.
 * Every error is JSON, {@code {"error": "...", "code": "..."}} ({@link ApiError}): 400 for a malformed body, an
 * unknown field or an invalid value (naming the field), 404 for an unknown stream, broker or path, 405 for a
 * method a path does not take, 409 for a conflict, 413 for a body over pekko.http.server.parsing.max-content-length,
 * 415 for a body that is not JSON, 503 when the singleton does not answer in time. Creating a stream answers 201,
 * deleting a stream or a broker 204. A refused request changes nothing (the singleton persists nothing for it).
 * The routes are described by {@code /v1/openapi.json} (kept true by OpenApiClusterTest).
 */
public final class AdminRoutes extends AllDirectives {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final ActorSystem<?> system;
  private final ActorRef<PlacementController.Command> singleton;
  private final ActorRef<AssignmentHolder.Command> holder;
  private final Duration timeout;
  private final CommitOffsets commitOffsets;
  private final GroupRoutes groupRoutes;
  private final ShardStatuses shardStatuses;
  private final ReplicaDigests replicaDigests;
  private final PlacementSimulation simulation;
  private final int recentMoves;
  private final int defaultReplicationFactor;

  /** Asks the leaders of a stream's shards for their commit offsets (shard -> offset; missing if no answer). */
  public interface CommitOffsets {
    CompletionStage<Map<Integer, Long>> of(AssignmentTable table, String stream);
  }

  /** Asks every replica of the chosen shards for its status (shard -> broker -> status; missing if no answer). */
  public interface ShardStatuses {
    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> of(AssignmentTable table, Predicate<ShardId> shards);
  }

  public AdminRoutes(ActorSystem<?> system, ActorRef<PlacementController.Command> singleton,
      ActorRef<AssignmentHolder.Command> holder, HttpSettings settings, ControlSettings controlSettings,
      CommitOffsets commitOffsets, ShardStatuses shardStatuses) {
    this.system = system;
    this.singleton = singleton;
    this.holder = holder;
    this.timeout = settings.singletonTimeout();
    this.commitOffsets = commitOffsets;
    this.shardStatuses = shardStatuses;
    this.replicaDigests = new ReplicaDigests(system, commitOffsets, controlSettings.replicaTimeout());
    this.simulation = new PlacementSimulation(controlSettings);
    this.recentMoves = controlSettings.recentMoves();
    this.defaultReplicationFactor = settings.defaultReplicationFactor();
    this.groupRoutes = new GroupRoutes(system, commitOffsets, timeout);
  }

  /**
   * The API's routes, sealed (every rejection and failure becomes a response) and with every error answer in
   * JSON, including Pekko's own (unknown path, wrong method, body too large).
   */
  public Route routes() {
    return mapResponse(JsonErrors::ofResponse, () -> new AdminGuard(system, this).guard(this::unsealedRoutes).seal());
  }

  private Route unsealedRoutes() {
    return concat(
        path("health", () -> get(() -> json(StatusCodes.OK, AdminJson.message("up")))),
        path("ready", () -> get(this::ready)),
        MetricsRoute.create(BrokerMetrics.of(system), () -> groupRoutes.coordinatedLags()
            .thenAccept(BrokerMetrics.of(system)::groupsCoordinated)),
        ConsoleRoute.create(),
        pathPrefix("v1", () -> concat(
            path("brokers", () -> get(() -> withStatuses(shard -> true, (view, statuses) -> ok(AdminJson.brokers(
                view, UnderReplication.perLeader(view.state().shards().values(), statuses)))))),
            path(PathMatchers.segment("brokers").slash(PathMatchers.integerSegment()).slash("drain"),
                id -> concat(
                    post(() -> command(r -> new PlacementController.DrainBroker(id, r))),
                    delete(() -> command(r -> new PlacementController.UndrainBroker(id, r))))),
            path(PathMatchers.segment("brokers").slash(PathMatchers.segment()), id -> delete(() -> brokerId(id,
                n -> command(StatusCodes.NO_CONTENT, r -> new PlacementController.RemoveBroker(n, r))))),
            path("streams", () -> concat(
                get(() -> withStatuses(shard -> true, (view, statuses) -> ok(AdminJson.streams(view.state(),
                    UnderReplication.perStream(view.state().shards().values(), statuses))))),
                post(() -> body(this::createStream)))),
            path(PathMatchers.segment("streams").slash(PathMatchers.segment()).slash("replica-digests"),
                name -> get(() -> replicaDigests(name))),
            path(PathMatchers.segment("streams").slash(PathMatchers.segment()), name -> concat(
                get(() -> describeStream(name)),
                patch(() -> userStream(name, () -> body(b -> changeStream(name, b)))),
                delete(() -> userStream(name, () -> command(StatusCodes.NO_CONTENT,
                    r -> new PlacementController.DeleteStream(name, r)))))),
            path("replication-status", () -> get(() -> parameterOptional("format", format ->
                withView(view -> {
                  ReplicationStatus status = new ReplicationStatus(view.state());
                  return format.filter("json"::equals).isPresent() ? ok(status.json())
                      : complete(HttpResponse.create().withEntity(ContentTypes.TEXT_PLAIN_UTF8, status.text()));
                })))),
            path("placement", () -> get(() -> withView(view -> ok(AdminJson.placement(view))))),
            path(PathMatchers.segment("placement").slash("pause"),
                () -> post(() -> command(PlacementController.PausePlacement::new))),
            path(PathMatchers.segment("placement").slash("resume"),
                () -> post(() -> command(PlacementController.ResumePlacement::new))),
            path(PathMatchers.segment("placement").slash("simulate"), () -> post(() ->
                jsonText(text -> text.isBlank()
                    ? withView(view -> respond(simulation.live(view)))
                    : respond(simulation.posted(text))))),
            path("openapi.json", () -> get(() -> complete(HttpResponse.create()
                .withEntity(ContentTypes.APPLICATION_JSON, OpenApi.document())))),
            path("shard-moves", () -> concat(
                get(() -> withView(view -> ok(AdminJson.moves(view.state(), System.currentTimeMillis(),
                    recentMoves)))),
                post(() -> body(this::startMove)))),
            groupRoutes.route(),
            new CacheRoutes(this, commitOffsets).routes(),
            new SecurityRoutes(system, this).routes())));
  }

  private Route ready() {
    Cluster cluster = Cluster.get(system);
    boolean up = cluster.selfMember().status().equals(MemberStatus.up());
    CompletionStage<AssignmentTable> table = AskPattern.ask(holder, AssignmentHolder.GetTable::new,
        Duration.ofSeconds(2), system.scheduler());
    return onComplete(table, result -> {
      long version = result.isSuccess() ? result.get().version() : 0;
      if (up && version > 0) {
        return json(StatusCodes.OK, AdminJson.message("ready: cluster member, assignment table version " + version));
      }
      return error(StatusCodes.SERVICE_UNAVAILABLE, !up ? "not yet an up member of the cluster"
          : "no assignment table from the placement singleton yet");
    });
  }

  /**
   * POST /v1/streams. Without replication_factor the stream gets felix.http.default-replication-factor replicas
   * per shard, or as many as there are live brokers that can take replicas when fewer (the answer says so).
   */
  private Route createStream(JsonNode body) {
    onlyFields(body, "name", "shards", "replication_factor", "retention_ms", "retention_bytes", "segment_bytes");
    String name = text(body, "name");
    if (InternalStreams.isInternal(name)) {
      throw new BadField("name: names starting with '" + InternalStreams.PREFIX
          + "' are reserved for internal streams");
    }
    int shards = integer(body, "shards");
    StreamConfig config = streamConfig(body);
    return create(name, shards, body.has("replication_factor") ? integer(body, "replication_factor") : null, config);
  }

  /** Creates a stream or a cache ({@code config} tells which); a null replication factor takes the default. */
  Route create(String name, int shards, Integer replicationFactor, StreamConfig config) {
    if (replicationFactor != null) {
      int rf = replicationFactor;
      return command(StatusCodes.CREATED, r -> new PlacementController.CreateStream(name, shards, rf, config, r));
    }
    return withView(view -> {
      long eligible = view.state().brokers().values().stream()
          .filter(b -> view.available().contains(b.id()) && !b.draining()).count();
      int rf = (int) Math.max(1, Math.min(defaultReplicationFactor, eligible));
      String note = rf < defaultReplicationFactor ? " (replication factor " + rf + ", not the default "
          + defaultReplicationFactor + ": only " + eligible + " live brokers can take replicas)" : "";
      return command(StatusCodes.CREATED, note,
          r -> new PlacementController.CreateStream(name, shards, rf, config, r));
    });
  }

  /** The settings a stream may change; any other field is refused, so that nothing is silently ignored. */
  private static final Set<String> CHANGEABLE = Set.of("retention_ms", "retention_bytes", "segment_bytes", "shards");

  /** Internal streams belong to the brokers: the admin API lists them but neither changes nor deletes them. */
  private Route userStream(String name, Supplier<Route> route) {
    return InternalStreams.isInternal(name) ? error(StatusCodes.BAD_REQUEST, "'" + name + "' is an internal stream, "
        + "kept by the brokers themselves: it cannot be changed or deleted; nothing was done") : route.get();
  }

  private Route changeStream(String name, JsonNode body) {
    for (Iterator<String> fields = body.fieldNames(); fields.hasNext(); ) {
      String field = fields.next();
      if (!CHANGEABLE.contains(field)) {
        throw new BadField(field + ": cannot be changed (changeable: retention_ms, retention_bytes, segment_bytes, "
            + "shards)");
      }
    }
    StreamConfig change = streamConfig(body);
    Integer shards = body.has("shards") ? integer(body, "shards") : null;
    if (change.equals(StreamConfig.DEFAULTS) && shards == null) {
      throw new BadField("the body names no setting to change (retention_ms, retention_bytes, segment_bytes, "
          + "shards)");
    }
    return command(r -> new PlacementController.ChangeStream(name, change, shards, r));
  }

  /** A stream's own settings from a body: each optional (absent: the broker default, or unchanged). */
  private static StreamConfig streamConfig(JsonNode body) {
    Long retentionMs = optionalLong(body, "retention_ms");
    Long retentionBytes = optionalLong(body, "retention_bytes");
    Long segmentBytes = optionalLong(body, "segment_bytes");
    List<String> problems = StreamConfig.problems(retentionMs, retentionBytes, segmentBytes);
    if (!problems.isEmpty()) {
      throw new BadField(String.join("; ", problems));
    }
    return new StreamConfig(retentionMs, retentionBytes, segmentBytes);
  }

  static Long optionalLong(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new BadField(field + ": must be an integer");
    }
    return value.longValue();
  }

  private Route startMove(JsonNode body) {
    onlyFields(body, "stream", "shard", "to");
    String stream = text(body, "stream");
    int shard = integer(body, "shard");
    int to = integer(body, "to");
    return command(r -> new PlacementController.StartMove(stream, shard, to, r));
  }

  private Route describeStream(String name) {
    return withView(view -> {
      StreamRecord stream = view.state().streams().get(name);
      if (stream == null) {
        return error(StatusCodes.NOT_FOUND, "stream '" + name + "' does not exist");
      }
      CompletionStage<Map<Integer, Long>> offsets = commitOffsets.of(view.state().table(), name)
          .exceptionally(failure -> Map.of());
      CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> statuses = shardStatuses
          .of(view.state().table(), shard -> shard.stream().equals(name)).exceptionally(failure -> Map.of());
      return onSuccess(offsets.thenCombine(statuses, (found, replicas) ->
          AdminJson.streamDetail(view.state(), stream, found, replicas)), this::ok);
    });
  }

  private Route replicaDigests(String name) {
    return withView(view -> {
      if (!view.state().streams().containsKey(name)) {
        return error(StatusCodes.NOT_FOUND, "stream '" + name + "' does not exist");
      }
      return onSuccess(replicaDigests.of(view.state().table(), name),
          shards -> ok(AdminJson.replicaDigests(name, shards)));
    });
  }

  /** The singleton's view and the status of every replica of the chosen shards (an empty map if the asks fail). */
  private Route withStatuses(Predicate<ShardId> shards,
      BiFunction<ControlView, Map<ShardId, Map<Integer, ReplicaStatus>>, Route> handler) {
    return withView(view -> onSuccess(shardStatuses.of(view.state().table(), shards)
        .exceptionally(failure -> Map.of()), statuses -> handler.apply(view, statuses)));
  }

  /** Parses the body as a JSON object and hands it on; a malformed body or a bad field is a 400. */
  Route body(Function<JsonNode, Route> handler) {
    return jsonText(text -> {
      JsonNode node;
      try {
        node = MAPPER.readTree(text);
      } catch (JsonProcessingException e) {
        return error(StatusCodes.BAD_REQUEST, "malformed JSON body: " + e.getOriginalMessage());
      }
      if (node == null || !node.isObject()) {
        return error(StatusCodes.BAD_REQUEST, "the body must be a JSON object");
      }
      try {
        return handler.apply(node);
      } catch (BadField e) {
        return error(StatusCodes.BAD_REQUEST, e.getMessage());
      }
    });
  }

  /**
   * The request body as text, unless its Content-Type says it is something other than JSON (415). Bodies sent
   * without one (application/octet-stream), or as curl -d sends them (form-urlencoded), or as text/plain are read
   * as JSON.
   */
  private Route jsonText(Function<String, Route> handler) {
    return extractRequest(request -> {
      MediaType type = request.entity().getContentType().mediaType();
      if (!JSON_BODY_TYPES.contains(type)) {
        return error(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "the body must be JSON (Content-Type: application/json), "
            + "got " + type);
      }
      return entity(Unmarshaller.entityToString(), handler);
    });
  }

  private static final java.util.Set<MediaType> JSON_BODY_TYPES = java.util.Set.of(
      MediaTypes.APPLICATION_JSON, MediaTypes.APPLICATION_OCTET_STREAM, MediaTypes.APPLICATION_X_WWW_FORM_URLENCODED,
      MediaTypes.TEXT_PLAIN);

  /** Refuses a body with fields other than {@code known} (a misspelt optional field would be ignored silently). */
  static void onlyFields(JsonNode body, String... known) {
    java.util.List<String> unknown = new java.util.ArrayList<>();
    body.fieldNames().forEachRemaining(f -> {
      if (!java.util.Arrays.asList(known).contains(f)) {
        unknown.add("'" + f + "'");
      }
    });
    if (!unknown.isEmpty()) {
      throw new BadField("unknown field" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
          + " (known: " + String.join(", ", known) + ")");
    }
  }

  static final class BadField extends RuntimeException {
    BadField(String message) {
      super(message, null, false, false);
    }
  }

  static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual()) {
      throw new BadField(field + ": required, a string");
    }
    return value.asText();
  }

  static int integer(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new BadField(field + ": required, an integer");
    }
    return value.intValue();
  }

  private Route brokerId(String segment, Function<Integer, Route> handler) {
    try {
      return handler.apply(Integer.parseInt(segment));
    } catch (NumberFormatException e) {
      return error(StatusCodes.BAD_REQUEST, "broker id: must be an integer, got '" + segment + "'");
    }
  }

  private Route command(Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    return command(StatusCodes.OK, command);
  }

  /** Asks the singleton; done answers {@code success} (with its message, or no body for 204). */
  Route command(StatusCode success, Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    return command(success, "", command);
  }

  /** As above, with {@code note} appended to the done message. */
  Route command(StatusCode success, String note,
      Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    CompletionStage<ControlReply> reply = AskPattern.ask(singleton, command::apply, timeout, system.scheduler());
    return respond(reply.thenApply(r -> toResponse(r, success, note)));
  }

  private static Response toResponse(ControlReply reply, StatusCode success, String note) {
    if (reply instanceof ControlReply.Done done) {
      return new Response(success, success.equals(StatusCodes.NO_CONTENT) ? null
          : AdminJson.message(done.message() + note));
    }
    ControlReply.Rejected rejected = (ControlReply.Rejected) reply;
    StatusCode status = switch (rejected.refusal()) {
      case INVALID -> StatusCodes.BAD_REQUEST;
      case NOT_FOUND -> StatusCodes.NOT_FOUND;
      case CONFLICT -> StatusCodes.CONFLICT;
    };
    return new Response(status, AdminJson.error(status.intValue(), rejected.error()));
  }

  /** A status and a JSON document (null: no body, for 204). */
  record Response(StatusCode status, JsonNode body) {}

  Route withView(Function<ControlView, Route> handler) {
    CompletionStage<ControlView> view = AskPattern.ask(singleton, PlacementController.GetView::new, timeout,
        system.scheduler());
    return onComplete(view, result -> result.isSuccess() ? handler.apply(result.get()) : unavailable(result.failed().get()));
  }

  private Route respond(CompletionStage<Response> response) {
    return onComplete(response, result -> result.isSuccess()
        ? json(result.get().status(), result.get().body())
        : unavailable(result.failed().get()));
  }

  private Route unavailable(Throwable failure) {
    Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    if (cause instanceof TimeoutException) {
      return error(StatusCodes.SERVICE_UNAVAILABLE, "the placement singleton did not answer within "
          + timeout.toMillis() + " ms");
    }
    return error(StatusCodes.SERVICE_UNAVAILABLE, "the placement singleton cannot be reached: " + cause);
  }

  Route ok(JsonNode body) {
    return json(StatusCodes.OK, body);
  }

  Route error(StatusCode status, String message) {
    return json(status, AdminJson.error(status.intValue(), message));
  }

  Route json(StatusCode status, JsonNode body) {
    if (body == null) {
      return complete(HttpResponse.create().withStatus(status));
    }
    try {
      return complete(HttpResponse.create().withStatus(status)
          .withEntity(ContentTypes.APPLICATION_JSON, MAPPER.writeValueAsBytes(body)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON", e);
    }
  }
}
