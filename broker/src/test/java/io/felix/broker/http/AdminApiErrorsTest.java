package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.typesafe.config.ConfigFactory;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Every kind of bad request gets its status and a JSON error naming the problem, and changes nothing. */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class AdminApiErrorsTest {

  static BrokerCluster cluster;
  static BrokerNode via;

  @BeforeAll
  static void start() {
    // A default replication factor above the 3 brokers: a stream created without one gets 3, and is told so.
    // Clients are told "localhost" while the brokers reach each other on 127.0.0.1.
    cluster = BrokerCluster.start(3, Map.of("felix.http.default-replication-factor", 4,
        "felix.broker.advertised-host", "localhost"));
    via = cluster.broker(2);
    BrokerCluster.await(Duration.ofSeconds(20), "3 brokers registered", () -> {
      Reply r = cluster.get(via, "/v1/brokers");
      return r.status() == 200 && r.json().size() == 3;
    });
    assertEquals(201, cluster.post(via, "/v1/streams", "{\"name\":\"events\",\"shards\":3,\"replication_factor\":3}").status());
  }

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  /** Any method, any Content-Type (the AdminClient sends only GET, POST and DELETE). */
  private static Reply send(String method, String path, String contentType, String body) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + via.adminPort() + path))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    try {
      HttpResponse<String> r = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body());
    } catch (IOException | InterruptedException e) {
      throw new AssertionError(method + " " + path + " failed: " + e, e);
    }
  }

  /**
   * POSTs a 9 MiB body (over pekko.http.server.parsing.max-content-length). The server refuses it before reading it
   * all and closes the connection after its 413; when that close overtakes the rest of the upload the client can
   * lose the answer (CI saw "header parser received no bytes" once), so a refused upload is sent again, up to 3
   * times: it changes nothing on the broker.
   */
  private static Reply sendOversized(String path) {
    AssertionError last = null;
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        return send("POST", path, "application/json", "x".repeat(9 * 1024 * 1024));
      } catch (AssertionError lostAnswer) {
        last = lostAnswer;
      }
    }
    throw last;
  }

  @Test
  void everyErrorIsJsonWithACodeAndCreateAnswers201AndDelete204() {
    expect(404, "not_found", "The requested resource could not be found", cluster.get(via, "/v1/nothing-here"));
    expect(405, "method_not_allowed", "HTTP method not allowed, supported methods: GET, POST",
        send("PUT", "/v1/streams", "application/json", "{}"));
    expect(415, "unsupported_media_type", "the body must be JSON (Content-Type: application/json), got application/xml",
        send("POST", "/v1/streams", "application/xml", "<stream/>"));
    expect(413, "payload_too_large", "exceeded size limit", sendOversized("/v1/placement/simulate"));
    expect(400, "bad_request", "unknown fields 'shard', 'rf' (known: name, shards, replication_factor, retention_ms, retention_bytes, "
        + "segment_bytes)",
        cluster.post(via, "/v1/streams", "{\"name\":\"typo\",\"shard\":3,\"rf\":3}"));
    expect(400, "bad_request", "unknown field 'from' (known: stream, shard, to)",
        cluster.post(via, "/v1/shard-moves", "{\"stream\":\"events\",\"shard\":0,\"to\":1,\"from\":0}"));
    assertEquals(404, cluster.get(via, "/v1/streams/typo").status(), "a refused create creates nothing");

    // curl -d sends form-urlencoded: still read as JSON. No replication_factor: the default, capped by the brokers.
    Reply created = send("POST", "/v1/streams", "application/x-www-form-urlencoded", "{\"name\":\"defaulted\",\"shards\":2}");
    assertEquals(201, created.status(), created.body());
    assertTrue(created.json().get("message").asText().endsWith("(replication factor 3, not the default 4: only 3 live "
        + "brokers can take replicas)"), created.body());
    assertEquals(3, cluster.get(via, "/v1/streams/defaulted").json().get("replication_factor").asInt());
    Reply deleted = cluster.delete(via, "/v1/streams/defaulted");
    assertEquals(204, deleted.status());
    assertEquals("", deleted.body());
  }

  /** The lists share the singleton's view for a second (felix.http.list-max-age), never one from before a change. */
  @Test
  void aListRightAfterACreateOrDeleteThroughTheSameBrokerShowsTheChange() {
    assertFalse(cluster.get(via, "/v1/streams").body().contains("\"listed-at-once\""));
    Reply created = cluster.post(via, "/v1/streams",
        "{\"name\":\"listed-at-once\",\"shards\":1,\"replication_factor\":1}");
    assertEquals(201, created.status(), created.body());
    assertTrue(cluster.get(via, "/v1/streams").body().contains("\"listed-at-once\""),
        "listed at once after its create");
    assertEquals(204, cluster.delete(via, "/v1/streams/listed-at-once").status());
    assertFalse(cluster.get(via, "/v1/streams").body().contains("\"listed-at-once\""), "gone at once after its delete");
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void badRequestsOfEachKindGetTheirStatusAndChangeNothing() {
    String streamsBefore = cluster.get(via, "/v1/streams").body();
    String layoutBefore = cluster.get(via, "/v1/streams/events").body();
    String brokersBefore = cluster.get(via, "/v1/brokers").body();
    String movesBefore = cluster.get(via, "/v1/shard-moves").body();

    // 400: malformed body, missing or mistyped field, invalid value - each naming the field.
    expect(400, "malformed JSON", cluster.post(via, "/v1/streams", "{\"name\": "));
    expect(400, "JSON object", cluster.post(via, "/v1/streams", "[1,2]"));
    expect(400, "name: required", cluster.post(via, "/v1/streams", "{\"shards\":3,\"replication_factor\":3}"));
    expect(400, "shards: required", cluster.post(via, "/v1/streams", "{\"name\":\"x\",\"shards\":\"3\",\"replication_factor\":3}"));
    expect(400, "shards: must be 1..", cluster.post(via, "/v1/streams", "{\"name\":\"x\",\"shards\":0,\"replication_factor\":3}"));
    expect(400, "replication_factor: 4 exceeds the 3 live brokers",
        cluster.post(via, "/v1/streams", "{\"name\":\"x\",\"shards\":3,\"replication_factor\":4}"));
    expect(400, "replication_factor: must be >= 1",
        cluster.post(via, "/v1/streams", "{\"name\":\"x\",\"shards\":3,\"replication_factor\":0}"));
    expect(400, "name: must be", cluster.post(via, "/v1/streams", "{\"name\":\"a/b\",\"shards\":3,\"replication_factor\":1}"));
    expect(400, "name: 129 characters exceed the limit of 128 (felix.control.max-stream-name-length)",
        cluster.post(via, "/v1/streams", "{\"name\":\"" + "n".repeat(129) + "\",\"shards\":3,\"replication_factor\":1}"));
    expect(400, "shards: must be 1..10000 (felix.control.max-shards-per-stream), got 10001",
        cluster.post(via, "/v1/streams", "{\"name\":\"x\",\"shards\":10001,\"replication_factor\":1}"));
    expect(400, "'__consumer_offsets' is an internal stream, kept by the brokers themselves: it cannot be changed "
        + "or deleted", cluster.delete(via, "/v1/streams/__consumer_offsets"));
    expect(400, "'__consumer_offsets' is an internal stream",
        cluster.patch(via, "/v1/streams/__consumer_offsets", "{\"retention_ms\":1}"));
    expect(400, "broker id: must be an integer", cluster.delete(via, "/v1/brokers/abc"));
    expect(400, "shard: stream 'events' has shards 0..2, got 7",
        cluster.post(via, "/v1/shard-moves", "{\"stream\":\"events\",\"shard\":7,\"to\":1}"));
    expect(400, "to: required", cluster.post(via, "/v1/shard-moves", "{\"stream\":\"events\",\"shard\":0}"));
    expect(400, "unknown broker state 'sleepy'", cluster.post(via, "/v1/placement/simulate",
        "{\"brokers\":[{\"id\":0,\"state\":\"sleepy\"}],\"groups\":[]}"));
    expect(400, "groups: a simulation takes at most 200000 shards in all, got 50000000",
        cluster.post(via, "/v1/placement/simulate", "{\"brokers\":[{\"id\":0},{\"id\":1},{\"id\":2}],"
            + "\"groups\":[{\"name\":\"x\",\"shards\":50000000,\"replication_factor\":3}]}"));

    // 404: unknown stream or broker.
    expect(404, "stream 'nope' does not exist", cluster.get(via, "/v1/streams/nope"));
    expect(404, "stream 'nope' does not exist", cluster.delete(via, "/v1/streams/nope"));
    expect(404, "broker 9 is not known", cluster.post(via, "/v1/brokers/9/drain", ""));
    expect(404, "broker 9 is not known", cluster.delete(via, "/v1/brokers/9"));
    expect(404, "stream 'nope' does not exist",
        cluster.post(via, "/v1/shard-moves", "{\"stream\":\"nope\",\"shard\":0,\"to\":1}"));
    expect(404, "to: broker 9 is not known",
        cluster.post(via, "/v1/shard-moves", "{\"stream\":\"events\",\"shard\":0,\"to\":9}"));

    // 409: a name that exists, a broker still holding shards, a move to the current leader.
    expect(409, "stream 'events' already exists",
        cluster.post(via, "/v1/streams", "{\"name\":\"events\",\"shards\":3,\"replication_factor\":3}"));
    expect(409, "still holds 3 shard replicas", cluster.delete(via, "/v1/brokers/0"));
    int leader = cluster.get(via, "/v1/streams/events").json().get("shard_assignments").get(0).get("leader").asInt();
    expect(409, "already leads events/0",
        cluster.post(via, "/v1/shard-moves", "{\"stream\":\"events\",\"shard\":0,\"to\":" + leader + "}"));

    assertEquals(streamsBefore, cluster.get(via, "/v1/streams").body());
    assertEquals(layoutBefore, cluster.get(via, "/v1/streams/events").body());
    assertEquals(brokersBefore, cluster.get(via, "/v1/brokers").body());
    assertEquals(movesBefore, cluster.get(via, "/v1/shard-moves").body());
  }

  @Test
  void simulateAnswersWithTheLibrarysJsonForTheLiveClusterAndForAPostedLayout() {
    JsonNode live = cluster.post(via, "/v1/placement/simulate", "").json();
    assertTrue(live.get("converged").asBoolean(), live.toString());
    assertEquals(0, live.get("steps").size(), "a level cluster plans nothing: " + live);
    assertEquals(3, live.get("final").get("assignments").size());

    Reply posted = cluster.post(via, "/v1/placement/simulate", """
        {"brokers": [{"id": 0}, {"id": 1}, {"id": 2}],
         "groups": [{"name": "perf-quorum", "shards": 12, "replication_factor": 3}]}""");
    assertEquals(200, posted.status(), posted.body());
    JsonNode leaders = posted.json().get("leaders").get("groups").get("perf-quorum");
    assertEquals(4, leaders.get("0").asInt());
    assertEquals(4, leaders.get("1").asInt());
    assertEquals(4, leaders.get("2").asInt());
  }

  @Test
  void brokerOutsideAnyClusterIsNotReadyAndAnswers503(@TempDir Path dataDir) {
    // Every listener on a free port and the data under a temporary directory, never the defaults (7070, 7071,
    // 2551, 8080 and ./data), which another process on this machine may hold.
    try (BrokerNode lonely = BrokerNode.start(ConfigFactory.parseMap(Map.of(
        "felix.broker.id", 7, "felix.broker.data-dir", dataDir.toString(),
        "felix.broker.client-port", 0, "felix.broker.replication-port", 0,
        "felix.cluster.port", 0, "felix.http.port", 0, "felix.http.singleton-timeout", "500ms",
        "felix.persistence.url", "jdbc:h2:mem:lonely-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1")))) {
      Reply health = cluster.get(lonely, "/health");
      assertEquals(200, health.status());
      expect(503, "not yet an up member", cluster.get(lonely, "/ready"));
      expect(503, "did not answer within 500 ms", cluster.get(lonely, "/v1/streams"));
      expect(503, "did not answer within 500 ms",
          cluster.post(lonely, "/v1/streams", "{\"name\":\"x\",\"shards\":1,\"replication_factor\":1}"));
    }
    Reply ready = cluster.get(via, "/ready");
    assertEquals(200, ready.status(), ready.body());
  }

  /**
   * Keeps /v1/openapi.json true: every documented path answers every documented method with a route of its own
   * (not Pekko's "not found" or "method not allowed"), and every other method with 405; the documented statuses
   * include what each answered.
   */
  @Test
  void theOpenApiDocumentListsExactlyTheRoutesAndMethods() {
    Reply document = cluster.get(via, "/v1/openapi.json");
    assertEquals(200, document.status());
    JsonNode paths = document.json().get("paths");
    assertEquals(24, paths.size(), "every path of AdminRoutes: " + paths);
    int operations = 0;
    for (var it = paths.fields(); it.hasNext(); ) {
      var entry = it.next();
      // An unknown stream and broker: the routes answer (404 from the API itself) and change nothing.
      String path = entry.getKey().replace("{name}", "nope").replace("{id}", "9");
      for (String method : java.util.List.of("GET", "POST", "DELETE", "PUT", "PATCH")) {
        JsonNode operation = entry.getValue().get(method.toLowerCase(java.util.Locale.ROOT));
        Reply reply = send(method, path, "application/json", method.equals("POST") && !path.endsWith("simulate")
            && !path.endsWith("pause") && !path.endsWith("resume") && !path.endsWith("drain") ? "{}" : null);
        if (operation == null) {
          assertEquals(405, reply.status(), method + " " + path + ": " + reply.body());
          expect(405, "method_not_allowed", "HTTP method not allowed", reply);
          continue;
        }
        operations++;
        assertTrue(reply.status() != 405 && !reply.body().contains("The requested resource could not be found"),
            method + " " + path + " has no route: " + reply.status() + " " + reply.body());
        assertTrue(operation.get("responses").has(Integer.toString(reply.status())),
            method + " " + path + " answered " + reply.status() + ", not documented: " + operation.get("responses"));
      }
    }
    assertEquals(34, operations);
    assertEquals(false, cluster.get(via, "/v1/placement").json().get("paused").asBoolean(), "resumed last");
  }

  @Test
  void clientsAreToldTheAdvertisedHostAndBrokersKeepTheirOwn() throws Exception {
    for (JsonNode b : cluster.get(via, "/v1/brokers").json()) {
      assertTrue(b.get("client_address").asText().startsWith("localhost:"), b.toString());
      assertEquals("127.0.0.1", b.get("host").asText(), b.toString());
    }
    try (FelixClient client = new FelixClient(ClientSettings.builder("127.0.0.1:" + via.endpoint().clientPort())
        .build())) {
      var brokers = client.metadata().get(10, java.util.concurrent.TimeUnit.SECONDS).getBrokersList();
      assertEquals(3, brokers.size());
      brokers.forEach(b -> assertEquals("localhost", b.getHost(), b.toString()));
    }
  }

  private static void expect(int status, String errorPart, Reply reply) {
    assertEquals(status, reply.status(), reply.body());
    String error = reply.json().get("error").asText();
    assertTrue(error.contains(errorPart), "error '" + error + "' should contain '" + errorPart + "'");
    assertEquals(ApiError.of(status).code(), reply.json().get("code").asText(), reply.body());
  }

  private static void expect(int status, String code, String errorPart, Reply reply) {
    expect(status, errorPart, reply);
    assertEquals(code, reply.json().get("code").asText());
  }
}
