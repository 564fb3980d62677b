package io.felix.broker.http;

import static io.felix.broker.http.AdminRequests.integer;
import static io.felix.broker.http.AdminRequests.onlyFields;
import static io.felix.broker.http.AdminRequests.optionalLong;
import static io.felix.broker.http.AdminRequests.text;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.control.ControlSettings;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementController;
import io.felix.broker.control.StreamList;
import io.felix.broker.http.AdminRequests.BadField;
import io.felix.broker.http.SharedAnswer.Served;
import io.felix.broker.metrics.BrokerMetrics;
import io.felix.broker.metrics.MetricsRoute;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
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
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The admin HTTP API, served by every broker; commands go to the placement singleton through its proxy.
 * Every error is JSON, {@code {"error": "...", "code": "..."}} ({@link ApiError}): 400 for a malformed body, an
 * unknown field or an invalid value (naming the field), 404 for an unknown stream, broker or path, 405 for a
 * method a path does not take, 409 for a conflict, 413 for a body over pekko.http.server.parsing.max-content-length,
 * 415 for a body that is not JSON, 503 when the singleton does not answer in time. Creating a stream answers 201,
 * deleting a stream or a broker 204. A refused request changes nothing (the singleton persists nothing for it).
 * The routes are described by {@code /v1/openapi.json} (kept true by OpenApiClusterTest). How a route asks the
 * singleton, reads a body and answers is {@link AdminRequests}, shared by every route class of the API.
 */
public final class AdminRoutes extends AllDirectives {

  private final ActorSystem<?> system;
  private final AdminRequests requests;
  private final ActorRef<AssignmentHolder.Command> holder;
  private final CommitOffsets commitOffsets;
  private final GroupRoutes groupRoutes;
  private final ShardStatuses shardStatuses;
  private final SharedAnswer<Map<ShardId, Map<Integer, ReplicaStatus>>> everyStatus;
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

    /**
     * As {@link #of}, for readers of roles, epochs and in-sync sets only (under-replication): the brokers may answer
     * from what their replicas published, whose offsets are not current.
     */
    default CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> rolesOf(AssignmentTable table,
        Predicate<ShardId> shards) {
      return of(table, shards);
    }
  }

  public AdminRoutes(ActorSystem<?> system, ActorRef<PlacementController.Command> singleton,
      ActorRef<AssignmentHolder.Command> holder, HttpSettings settings, ControlSettings controlSettings,
      CommitOffsets commitOffsets, ShardStatuses shardStatuses) {
    this.system = system;
    this.requests = new AdminRequests(system, singleton, settings.singletonTimeout(), settings.listMaxAge(),
        settings.listMaxWait(), settings.listMaxStale());
    this.holder = holder;
    this.commitOffsets = commitOffsets;
    this.shardStatuses = shardStatuses;
    this.everyStatus = new SharedAnswer<>(settings.listMaxAge(), settings.listMaxStale(), System::nanoTime);
    this.replicaDigests = new ReplicaDigests(system, commitOffsets, controlSettings.replicaTimeout());
    this.simulation = new PlacementSimulation(controlSettings);
    this.recentMoves = controlSettings.recentMoves();
    this.defaultReplicationFactor = settings.defaultReplicationFactor();
    this.groupRoutes = new GroupRoutes(system, requests, commitOffsets);
  }

  /**
   * The API's routes, sealed (every rejection and failure becomes a response) and with every error answer in
   * JSON, including Pekko's own (unknown path, wrong method, body too large).
   */
  public Route routes() {
    return mapResponse(JsonErrors::ofResponse,
        () -> new AdminGuard(system, requests).guard(this::unsealedRoutes).seal());
  }

  private Route unsealedRoutes() {
    return concat(
        path("health", () -> get(() -> requests.ok(AdminJson.message("up")))),
        path("ready", () -> get(this::ready)),
        MetricsRoute.create(BrokerMetrics.of(system), () -> groupRoutes.coordinatedLags()
            .thenAccept(BrokerMetrics.of(system)::groupsCoordinated)),
        ConsoleRoute.create(),
        pathPrefix("v1", () -> concat(
            path("brokers", () -> get(() -> withEveryStatus((view, statuses) -> requests.okList(
                AdminJson.brokers(view.answer(), UnderReplication.perLeader(view.answer().state().shards().values(),
                    statuses.answer())), Math.max(view.staleMillis(), statuses.staleMillis()))))),
            path(PathMatchers.segment("brokers").slash(PathMatchers.integerSegment()).slash("drain"),
                id -> concat(
                    post(() -> requests.command(r -> new PlacementController.DrainBroker(id, r))),
                    delete(() -> requests.command(r -> new PlacementController.UndrainBroker(id, r))))),
            path(PathMatchers.segment("brokers").slash(PathMatchers.segment()), id -> delete(() -> brokerId(id,
                n -> requests.command(StatusCodes.NO_CONTENT, r -> new PlacementController.RemoveBroker(n, r))))),
            path("streams", () -> concat(
                get(this::listStreams),
                post(() -> requests.body(this::createStream)))),
            path(PathMatchers.segment("streams").slash(PathMatchers.segment()).slash("replica-digests"),
                name -> get(() -> replicaDigests(name))),
            path(PathMatchers.segment("streams").slash(PathMatchers.segment()), name -> concat(
                get(() -> describeStream(name)),
                patch(() -> userStream(name, () -> requests.body(b -> changeStream(name, b)))),
                delete(() -> userStream(name, () -> requests.command(StatusCodes.NO_CONTENT,
                    r -> new PlacementController.DeleteStream(name, r)))))),
            path("replication-status", () -> get(() -> parameterOptional("format", format ->
                requests.withView(view -> {
                  ReplicationStatus status = new ReplicationStatus(view.state());
                  return format.filter("json"::equals).isPresent() ? requests.ok(status.json())
                      : complete(HttpResponse.create().withEntity(ContentTypes.TEXT_PLAIN_UTF8, status.text()));
                })))),
            path("placement", () -> get(() -> requests.withView(view -> requests.ok(AdminJson.placement(view))))),
            path(PathMatchers.segment("placement").slash("pause"),
                () -> post(() -> requests.command(PlacementController.PausePlacement::new))),
            path(PathMatchers.segment("placement").slash("resume"),
                () -> post(() -> requests.command(PlacementController.ResumePlacement::new))),
            path(PathMatchers.segment("placement").slash("simulate"), () -> post(() ->
                requests.jsonText(text -> text.isBlank()
                    ? requests.withView(view -> requests.respond(simulation.live(view)))
                    : requests.respond(simulation.posted(text))))),
            path("openapi.json", () -> get(() -> complete(HttpResponse.create()
                .withEntity(ContentTypes.APPLICATION_JSON, OpenApi.document())))),
            path("shard-moves", () -> concat(
                get(() -> requests.withView(view -> requests.ok(AdminJson.moves(view.state(),
                    System.currentTimeMillis(), recentMoves)))),
                post(() -> requests.body(this::startMove)))),
            groupRoutes.route(),
            new CacheRoutes(this, requests, commitOffsets).routes(),
            new SecurityRoutes(system, requests).routes())));
  }

  private Route ready() {
    Cluster cluster = Cluster.get(system);
    boolean up = cluster.selfMember().status().equals(MemberStatus.up());
    CompletionStage<AssignmentTable> table = AskPattern.ask(holder, AssignmentHolder.GetTable::new,
        Duration.ofSeconds(2), system.scheduler());
    return onComplete(table, result -> {
      long version = result.isSuccess() ? result.get().version() : 0;
      if (up && version > 0) {
        return requests.ok(AdminJson.message("ready: cluster member, assignment table version " + version));
      }
      return requests.error(StatusCodes.SERVICE_UNAVAILABLE, !up ? "not yet an up member of the cluster"
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
      return requests.command(StatusCodes.CREATED,
          r -> new PlacementController.CreateStream(name, shards, rf, config, r));
    }
    return requests.withView(view -> {
      long eligible = view.state().brokers().values().stream()
          .filter(b -> view.available().contains(b.id()) && !b.draining()).count();
      int rf = (int) Math.max(1, Math.min(defaultReplicationFactor, eligible));
      String note = rf < defaultReplicationFactor ? " (replication factor " + rf + ", not the default "
          + defaultReplicationFactor + ": only " + eligible + " live brokers can take replicas)" : "";
      return requests.command(StatusCodes.CREATED, note,
          r -> new PlacementController.CreateStream(name, shards, rf, config, r));
    });
  }

  /** The settings a stream may change; any other field is refused, so that nothing is silently ignored. */
  private static final Set<String> CHANGEABLE = Set.of("retention_ms", "retention_bytes", "segment_bytes", "shards");

  /** Internal streams belong to the brokers: the admin API lists them but neither changes nor deletes them. */
  private Route userStream(String name, Supplier<Route> route) {
    return InternalStreams.isInternal(name) ? requests.error(StatusCodes.BAD_REQUEST, "'" + name
        + "' is an internal stream, kept by the brokers themselves: it cannot be changed or deleted; nothing was done")
        : route.get();
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
    return requests.command(r -> new PlacementController.ChangeStream(name, change, shards, r));
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

  private Route startMove(JsonNode body) {
    onlyFields(body, "stream", "shard", "to");
    String stream = text(body, "stream");
    int shard = integer(body, "shard");
    int to = integer(body, "to");
    return requests.command(r -> new PlacementController.StartMove(stream, shard, to, r));
  }

  private Route describeStream(String name) {
    return requests.withView(view -> {
      StreamRecord stream = view.state().streams().get(name);
      if (stream == null) {
        return requests.error(StatusCodes.NOT_FOUND, "stream '" + name + "' does not exist");
      }
      CompletionStage<Map<Integer, Long>> offsets = commitOffsets.of(view.state().table(), name)
          .exceptionally(failure -> Map.of());
      CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> statuses = shardStatuses
          .of(view.state().table(), shard -> shard.stream().equals(name)).exceptionally(failure -> Map.of());
      return onSuccess(offsets.thenCombine(statuses, (found, replicas) ->
          AdminJson.streamDetail(view.state(), stream, found, replicas)), requests::ok);
    });
  }

  private Route replicaDigests(String name) {
    return requests.withView(view -> {
      if (!view.state().streams().containsKey(name)) {
        return requests.error(StatusCodes.NOT_FOUND, "stream '" + name + "' does not exist");
      }
      return onSuccess(replicaDigests.of(view.state().table(), name),
          shards -> requests.ok(AdminJson.replicaDigests(name, shards)));
    });
  }

  /**
   * The singleton's view and the status of every replica (an empty map if the asks fail), each shared between list
   * requests ({@link SharedAnswer}): the statuses as long as the assignment table is the same version.
   */
  private Route withEveryStatus(BiFunction<Served<ControlView>, Served<Map<ShardId, Map<Integer, ReplicaStatus>>>,
      Route> handler) {
    return requests.withSharedView(view -> onSuccess(everyStatusOf(view.answer().state().table()),
        statuses -> handler.apply(view, statuses)));
  }

  /**
   * GET /v1/streams: the streams of this broker's own assignment table ({@link StreamList#of(AssignmentTable)}) and,
   * for their under-replicated shards, the status of every replica in it. The singleton is asked only when this
   * broker's table may lack a change a command through this broker made (or it has no table yet): asked each time,
   * a singleton busy creating or failing over 10,000 shards held the lists up to the 5 s timeout (2026-12-07).
   */
  private Route listStreams() {
    return onSuccess(localTable(), table -> {
      CompletionStage<LocalStatuses> local =
          everyStatusOf(table).thenApply(statuses -> new LocalStatuses(table, statuses));
      // When the singleton is asked, this broker's statuses are asked beside it: the list waits for the slower.
      return requests.showsOwnChanges(table)
          ? onSuccess(local, mine -> listed(StreamList.of(table), 0, mine))
          : requests.withSharedStreams(list ->
              onSuccess(local, mine -> listed(list.answer(), list.staleMillis(), mine)));
    });
  }

  /** A stream list; a stream too new for this broker's table shows every shard under-replicated. */
  private Route listed(StreamList list, long staleMillis, LocalStatuses mine) {
    return requests.okList(AdminJson.streams(list.streams(),
        UnderReplication.perListedStream(list.streams(), mine.table(), mine.statuses().answer())),
        Math.max(staleMillis, mine.statuses().staleMillis()));
  }

  /** This broker's table and the statuses of its replicas, as a list shows them. */
  private record LocalStatuses(AssignmentTable table, Served<Map<ShardId, Map<Integer, ReplicaStatus>>> statuses) {}

  /** This broker's assignment table (its holder answers at once: it is on this broker). */
  private CompletionStage<AssignmentTable> localTable() {
    return AskPattern.ask(holder, AssignmentHolder.GetTable::new, requests.timeout(), system.scheduler());
  }

  /**
   * The role, epoch and in-sync set of every replica of {@code table} (what under-replication reads), shared between
   * list requests while the table is the same; after felix.http.list-max-wait, those of an earlier table serve.
   */
  private CompletionStage<Served<Map<ShardId, Map<Integer, ReplicaStatus>>>> everyStatusOf(AssignmentTable table) {
    return everyStatus.get(table.version(), () -> shardStatuses.rolesOf(table, shard -> true),
        requests.listMaxWait(), true).exceptionally(failure -> new Served<>(Map.of(), 0));
  }

  private Route brokerId(String segment, Function<Integer, Route> handler) {
    try {
      return handler.apply(Integer.parseInt(segment));
    } catch (NumberFormatException e) {
      return requests.error(StatusCodes.BAD_REQUEST, "broker id: must be an integer, got '" + segment + "'");
    }
  }
}
