package io.felix.broker.http;

import static org.apache.pekko.http.javadsl.server.Directives.completeWithFuture;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.optionalHeaderValueByName;
import static org.apache.pekko.http.javadsl.server.Directives.parameterOptional;
import static org.apache.pekko.http.javadsl.server.Directives.path;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.group.GroupLag;
import io.felix.broker.group.GroupMembership;
import io.felix.broker.group.GroupView;
import io.felix.broker.group.LocalGroups;
import io.felix.broker.group.OffsetsStore;
import io.felix.broker.tls.TlsSettings;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GET /v1/groups and GET /v1/groups/{id}: consumer groups as their coordinators see them. A group lives on one
 * broker (the leader of its offsets shard), so any broker answers by asking: the list asks every broker's
 * {@code ?local=true} list, the detail asks the group's coordinator. The detail adds each shard's lag (the shard's
 * commit offset minus the group's committed offset, or minus 0 when nothing is committed). A broker asks another
 * with the caller's own bearer token (the other broker checks it as it would the caller's) and over HTTPS when
 * felix.tls is on, since every admin server then serves HTTPS only.
 */
final class GroupRoutes {
  private static final Logger log = LoggerFactory.getLogger(GroupRoutes.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final ActorSystem<?> system;
  private final LocalGroups groups;
  private final AdminRoutes.CommitOffsets commitOffsets;
  private final Duration timeout;
  private final TlsSettings tls;

  GroupRoutes(ActorSystem<?> system, AdminRequests requests, AdminRoutes.CommitOffsets commitOffsets) {
    this.system = system;
    this.groups = LocalGroups.of(system);
    this.commitOffsets = commitOffsets;
    this.timeout = requests.timeout();
    this.tls = TlsSettings.fromConfig(system.settings().config());
  }

  Route route() {
    return optionalHeaderValueByName("Authorization", authorization -> concat(
        path("groups", () -> get(() -> parameterOptional("local", local -> completeWithFuture(
            local.isPresent() ? localList().thenApply(GroupRoutes::ok) : clusterList(authorization))))),
        path(PathMatchers.segment("groups").slash(PathMatchers.segment()), id -> get(() ->
            parameterOptional("local", local -> completeWithFuture(describe(id, local.isPresent(),
                authorization)))))));
  }

  private CompletionStage<ArrayNode> localList() {
    return groups.describeAll().thenApply(views -> {
      ArrayNode list = JSON.createArrayNode();
      views.stream().sorted((a, b) -> a.group().compareTo(b.group())).forEach(v -> list.add(summary(v)));
      return list;
    });
  }

  /** Every broker's own list, merged; a broker that does not answer is named in the log and left out. */
  private CompletionStage<HttpResponse> clusterList(Optional<String> authorization) {
    AssignmentTable table = groups.table();
    List<CompletableFuture<JsonNode>> parts = new ArrayList<>();
    for (BrokerEndpoint b : table.brokers().values()) {
      CompletionStage<JsonNode> part = b.id() == groups.brokerId() ? localList().thenApply(n -> n)
          : ask(b, "/v1/groups?local=true", authorization).thenCompose(r -> r.entity().toStrict(timeout.toMillis(),
              system).thenApply(e -> listOrFail(r.status().intValue(), e.getData().utf8String())));
      parts.add(part.toCompletableFuture().exceptionally(e -> {
        log.info("GET /v1/groups: broker {} did not list its groups ({}); they are left out", b.id(),
            e.getMessage());
        return JSON.createArrayNode();
      }));
    }
    return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
      List<JsonNode> all = new ArrayList<>();
      parts.forEach(p -> p.join().forEach(all::add));
      all.sort((a, b) -> a.get("group").asText().compareTo(b.get("group").asText()));
      ArrayNode list = JSON.createArrayNode();
      all.forEach(list::add);
      return ok(list);
    });
  }

  private CompletionStage<HttpResponse> describe(String group, boolean local, Optional<String> authorization) {
    AssignmentTable table = groups.table();
    Integer offsetsShards = table.streams().get(OffsetsStore.STREAM);
    int coordinator = offsetsShards == null ? -1 : table.shard(new ShardId(OffsetsStore.STREAM,
        OffsetsStore.shardOf(group, offsetsShards))).map(a -> a.leader()).orElse(-1);
    Optional<BrokerEndpoint> endpoint = table.broker(coordinator);
    if (offsetsShards == null) {
      return CompletableFuture.completedFuture(AdminRequests.errorResponse(StatusCodes.NOT_FOUND,
          "no group named '" + group + "' (no group has been used yet)"));
    }
    if (!local && coordinator != groups.brokerId()) {
      if (endpoint.isEmpty()) {
        return CompletableFuture.completedFuture(AdminRequests.errorResponse(StatusCodes.SERVICE_UNAVAILABLE,
            "group '" + group + "' has no coordinator now (its offsets shard has no leader)"));
      }
      return ask(endpoint.get(), "/v1/groups/" + URLEncoder.encode(group, StandardCharsets.UTF_8)
          .replace("+", "%20") + "?local=true", authorization);
    }
    return groups.describeAll().thenCompose(views -> {
      Optional<GroupView> view = views.stream().filter(v -> v.group().equals(group)).findFirst();
      if (view.isEmpty()) {
        return CompletableFuture.completedFuture(AdminRequests.errorResponse(StatusCodes.NOT_FOUND,
            "no group named '" + group + "' (its coordinator, broker " + groups.brokerId() + ", knows none)"));
      }
      GroupView v = view.get();
      CompletionStage<Map<Integer, Long>> highWatermarks = v.stream().isEmpty()
          ? CompletableFuture.completedFuture(Map.of()) : commitOffsets.of(groups.table(), v.stream());
      return highWatermarks.thenApply(hw -> ok(detail(v, hw)));
    });
  }

  /**
   * The lag of every group this broker coordinates, for {@code /metrics}: each group's committed offsets against its
   * stream's commit offsets as their leaders report them (a leader that does not answer leaves its shard out).
   */
  CompletionStage<List<GroupLag>> coordinatedLags() {
    return groups.describeAll().thenCompose(views -> {
      List<CompletableFuture<List<GroupLag>>> parts = new ArrayList<>();
      for (GroupView v : views) {
        if (!v.stream().isEmpty()) {
          parts.add(commitOffsets.of(groups.table(), v.stream()).thenApply(hw -> GroupLag.of(v, hw))
              .toCompletableFuture());
        }
      }
      return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(done -> {
        List<GroupLag> all = new ArrayList<>();
        parts.forEach(p -> all.addAll(p.join()));
        return all;
      });
    });
  }

  private static ObjectNode summary(GroupView v) {
    return JSON.createObjectNode().put("group", v.group()).put("coordinator", v.coordinator())
        .put("stream", v.stream()).put("generation", v.generation()).put("members", v.members().size());
  }

  private static ObjectNode detail(GroupView v, Map<Integer, Long> highWatermarks) {
    ObjectNode node = summary(v);
    ArrayNode members = node.putArray("members");
    for (GroupMembership.MemberView m : v.members()) {
      ObjectNode member = members.addObject().put("member_id", m.memberId())
          .put("session_timeout_ms", m.sessionTimeoutMs());
      m.shards().forEach(member.putArray("shards")::add);
    }
    ArrayNode shards = node.putArray("shards");
    long totalLag = 0;
    for (Map.Entry<Integer, Long> e : v.committed().entrySet()) {
      int shard = e.getKey();
      ObjectNode s = shards.addObject().put("shard", shard);
      String owner = v.members().stream().filter(m -> m.shards().contains(shard)).map(m -> m.memberId())
          .findFirst().orElse(null);
      s.put("owner", owner);
      if (e.getValue() >= 0) {
        s.put("committed_offset", e.getValue());
      } else {
        s.putNull("committed_offset");
      }
      Long hw = highWatermarks.get(shard);
      if (hw != null && hw >= 0) {
        long lag = GroupLag.records(e.getValue(), hw);
        s.put("commit_offset", hw).put("lag", lag);
        totalLag += lag;
      } else {
        s.putNull("commit_offset").putNull("lag");
      }
    }
    node.put("lag", totalLag);
    return node;
  }

  private CompletionStage<HttpResponse> ask(BrokerEndpoint broker, String path, Optional<String> authorization) {
    HttpRequest request = HttpRequest.GET((tls.enabled() ? "https://" : "http://") + broker.host() + ":"
        + broker.adminPort() + path);
    if (authorization.isPresent()) {
      request = request.addHeader(RawHeader.create("Authorization", authorization.get()));
    }
    return tls.enabled()
        ? Http.get(system).singleRequest(request, ConnectionContext.httpsClient(tls::brokerClientEngine))
        : Http.get(system).singleRequest(request);
  }

  /** Another broker's own list, or a failure naming its answer (a 401 or 403 is an error object, not a list). */
  private static JsonNode listOrFail(int status, String body) {
    JsonNode answer = parse(body);
    if (status != StatusCodes.OK.intValue() || !answer.isArray()) {
      throw new IllegalStateException("it answered " + status + " " + body);
    }
    return answer;
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static HttpResponse ok(JsonNode body) {
    return AdminRequests.response(StatusCodes.OK, body);
  }
}
