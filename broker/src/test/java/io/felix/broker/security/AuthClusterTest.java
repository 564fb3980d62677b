package io.felix.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.testing.Failures;
import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.HostPort;
import io.felix.client.admin.AdminClient;
import io.felix.protocol.FrameCodec;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import com.google.protobuf.ByteString;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Authentication and authorization on three real brokers with every part on: the admin API refuses requests
 * without a bearer token; users and ACLs made through it reach every broker; a client that does not authenticate,
 * or gives a wrong password, is refused with AUTHENTICATION_FAILED; a principal without an ACL with
 * AUTHORIZATION_FAILED and nothing appended; an allowed one produces and consumes; a batch forwarded in plain mode
 * is authorized at the leader for the client's principal; and users and ACLs survive the singleton's move.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class AuthClusterTest {
  private static final String ADMIN_TOKEN = "test-admin-token-0123456789";
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final FrameCodec CODEC = FrameCodec.withDefaults();

  @Test
  void onlyAuthenticatedAndAuthorizedClientsProduceAndConsume() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "felix.security.client-authentication", "on",
        "felix.security.admin-authentication", "on",
        "felix.security.authorization", "on",
        "felix.security.super-users", List.of("admin"),
        "felix.security.admin-tokens", List.of(ADMIN_TOKEN),
        "felix.security.scram-iterations", 4096))) {
      BrokerNode b0 = cluster.broker(0);
      AdminClient anonymous = AdminClient.local(b0.adminPort());
      AdminClient.Reply refused = anonymous.get("/v1/streams");
      assertEquals(401, refused.status());
      assertEquals("unauthorized", MAPPER.readTree(refused.body()).get("code").asText());
      assertEquals(401, anonymous.withToken("not-a-token").get("/v1/streams").status());
      assertEquals(200, anonymous.get("/health").status(), "health stays open for supervisors");

      AdminClient admin = anonymous.withToken(ADMIN_TOKEN);
      admin.createStream("orders", 3, 3);
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"alice\",\"password\":\"alice-secret\"}").status());
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"bob\",\"password\":\"bob-secret!\"}").status());
      assertEquals(201, admin.post("/v1/users", "{\"name\":\"carol\",\"password\":\"carol-secret\"}").status());
      assertEquals(201, admin.post("/v1/acls", describe("bob")).status());
      for (String operation : List.of("produce", "consume", "describe")) {
        assertEquals(201, admin.post("/v1/acls", "{\"principal\":\"alice\",\"resource_type\":\"stream\","
            + "\"resource_name\":\"orders\",\"operation\":\"" + operation + "\"}").status());
      }
      assertEquals(409, admin.post("/v1/acls", "{\"principal\":\"alice\",\"resource_type\":\"stream\","
          + "\"resource_name\":\"orders\",\"operation\":\"produce\"}").status(), "the same ACL twice");
      assertEquals(400, admin.post("/v1/acls", "{\"principal\":\"alice\",\"resource_type\":\"topic\","
          + "\"resource_name\":\"orders\",\"operation\":\"produce\"}").status(), "an unknown resource type");
      for (BrokerNode b : cluster.live()) {
        AdminClient via = AdminClient.local(b.adminPort()).withToken(ADMIN_TOKEN);
        BrokerCluster.await(Duration.ofSeconds(10), "users and ACLs on broker " + b.id(), () ->
            json(via, "/v1/users").get("users").size() == 3 && json(via, "/v1/acls").get("acls").size() == 4);
      }
      cluster.awaitReady();
      String users = admin.get("/v1/users").body();
      assertFalse(users.contains("alice-secret") || users.contains("stored"), "no password or key is shown: " + users);

      // No authentication: refused, nothing done.
      Response unauthenticated = rawProduce(b0, "orders", 0);
      assertEquals(ErrorCode.AUTHENTICATION_FAILED, unauthenticated.getError().getCode());
      assertTrue(unauthenticated.getError().getNotAppended());
      // A wrong password: the handshake fails.
      try (FelixClient wrong = client(cluster, "alice", "not-her-password", ClientMode.CLUSTER, null)) {
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, Failures.of(() -> wrong.metadata("orders").join()).code());
      }
      // Authenticated without an ACL: not even listed; may describe but not produce or consume: refused, nothing
      // appended.
      try (FelixClient carol = client(cluster, "carol", "carol-secret", ClientMode.CLUSTER, null)) {
        assertEquals(0, carol.metadata().join().getStreamsCount(), "carol may describe no stream");
        assertEquals(ErrorCode.AUTHORIZATION_FAILED, carol.metadata("orders").join().getStreams(0).getError());
      }
      try (FelixClient bob = client(cluster, "bob", "bob-secret!", ClientMode.CLUSTER, null)) {
        assertEquals(List.of("orders"), names(bob.metadata().join()));
        FelixException e = Failures.of(() -> bob.produce("orders", 0, "k".getBytes(), "v".getBytes(), List.of())
            .join());
        assertEquals(ErrorCode.AUTHORIZATION_FAILED, e.code());
        assertTrue(e.notAppended());
        assertEquals(ErrorCode.AUTHORIZATION_FAILED,
            Failures.of(() -> bob.fetch("orders", 0, 0, 1 << 20, 0).join()).code());
      }
      // Allowed: produces and reads back exactly what it wrote.
      try (FelixClient alice = client(cluster, "alice", "alice-secret", ClientMode.CLUSTER, null)) {
        for (int i = 0; i < 9; i++) {
          alice.produce("orders", i % 3, ("k" + i).getBytes(), ("v" + i).getBytes(), List.of()).join();
        }
        assertEquals(9, recordsIn(alice, 3));
      }

      // Plain mode through a broker that does not lead shard 0: the leader authorizes for the client's principal.
      MetadataResponse layout;
      try (FelixClient alice = client(cluster, "alice", "alice-secret", ClientMode.CLUSTER, null)) {
        layout = alice.metadata("orders").join();
      }
      ShardMetadata shard0 = layout.getStreams(0).getShards(0);
      BrokerNode forwarder = cluster.live().stream().filter(b -> b.id() != shard0.getLeader()).findFirst().orElseThrow();
      long forwardedBefore = forwarder.dataPlane().forwardedBatches();
      try (FelixClient bob = client(cluster, "bob", "bob-secret!", ClientMode.PLAIN, forwarder)) {
        FelixException e = Failures.of(() -> bob.produce("orders", 0, "k".getBytes(), "bob".getBytes(), List.of())
            .join());
        assertEquals(ErrorCode.AUTHORIZATION_FAILED, e.code(), "refused by the leader, for bob");
        assertTrue(e.getMessage().contains("'bob'"), e.getMessage());
      }
      try (FelixClient alice = client(cluster, "alice", "alice-secret", ClientMode.PLAIN, forwarder)) {
        alice.produce("orders", 0, "k".getBytes(), "forwarded".getBytes(), List.of()).join();
      }
      assertEquals(forwardedBefore + 2, forwarder.dataPlane().forwardedBatches(), "both batches were forwarded");
      try (FelixClient alice = client(cluster, "alice", "alice-secret", ClientMode.CLUSTER, null)) {
        assertEquals(10, recordsIn(alice, 3), "alice's forwarded record is stored, bob's refused ones are not");
      }

      // A token issued to alice authenticates her on the admin API; reading needs describe on the cluster.
      AdminClient.Reply issued = admin.post("/v1/users/alice/tokens", "");
      assertEquals(201, issued.status(), issued.body());
      String message = MAPPER.readTree(issued.body()).get("message").asText();
      AdminClient asAlice = anonymous.withToken(message.substring(message.indexOf("token: ") + 7));
      AdminClient.Reply forbidden = asAlice.get("/v1/streams");
      assertEquals(403, forbidden.status(), forbidden.body());
      assertEquals("forbidden", MAPPER.readTree(forbidden.body()).get("code").asText());
      assertEquals(201, admin.post("/v1/acls", "{\"principal\":\"alice\",\"resource_type\":\"cluster\","
          + "\"operation\":\"describe\"}").status());
      BrokerCluster.await(Duration.ofSeconds(10), "alice reading the admin API", () ->
          status(() -> asAlice.get("/v1/streams")) == 200);
      assertEquals(403, asAlice.post("/v1/acls", describe("alice")).status(), "managing ACLs needs admin");

      // The CLI: admin commands with FELIX_TOKEN, the console producer with FELIX_USER and FELIX_PASSWORD.
      String adminAddress = "127.0.0.1:" + b0.adminPort();
      Map<String, String> operator = Map.of("FELIX_TOKEN", ADMIN_TOKEN, "FELIX_PROFILE", "/dev/null");
      assertEquals(0, cli(operator, "user", "create", "dave", "--new-password", "dave-secret", "--admin", adminAddress));
      assertEquals(0, cli(operator, "acl", "add", "--principal", "dave", "--resource-type", "stream", "--resource",
          "orders", "--operation", "produce", "--admin", adminAddress));
      assertEquals(0, cli(operator, "acl", "add", "--principal", "dave", "--resource-type", "stream", "--resource",
          "orders", "--operation", "describe", "--admin", adminAddress));
      assertEquals(1, cli(Map.of("FELIX_PROFILE", "/dev/null"), "stream", "list", "--admin", adminAddress),
          "no token: refused");
      BrokerCluster.await(Duration.ofSeconds(10), "dave's ACLs", () -> json(admin, "/v1/acls").get("acls").size() == 7);
      String bootstrap = cluster.live().stream().map(b -> b.endpoint().clientAddress()).findFirst().orElseThrow();
      assertEquals(0, cli(Map.of("FELIX_USER", "dave", "FELIX_PASSWORD", "dave-secret", "FELIX_PROFILE", "/dev/null"),
          "produce", "orders", "--key", "cli", "--bootstrap", bootstrap), "dave produces one line");
      assertEquals(1, cli(Map.of("FELIX_USER", "dave", "FELIX_PASSWORD", "wrong-secret", "FELIX_PROFILE", "/dev/null"),
          "produce", "orders", "--key", "cli", "--bootstrap", bootstrap), "a wrong password produces nothing");
      try (FelixClient alice = client(cluster, "alice", "alice-secret", ClientMode.CLUSTER, null)) {
        assertEquals(11, recordsIn(alice, 3), "the CLI's one line, once");
      }

      // The singleton moves: the users and ACLs come back from its journal.
      BrokerNode host = cluster.singletonHost();
      cluster.stop(host);
      BrokerNode survivor = cluster.live().get(0);
      AdminClient viaSurvivor = AdminClient.local(survivor.adminPort()).withToken(ADMIN_TOKEN);
      BrokerCluster.await(Duration.ofSeconds(40), "the new singleton taking an ACL", () ->
          status(() -> viaSurvivor.post("/v1/acls", describe("carol"))) == 201);
      // A singleton that had lost the journal's security events would publish a state of one ACL (version 1),
      // which the brokers, holding a newer one, would ignore: the eighth ACL shows only on top of the recovered seven.
      BrokerCluster.await(Duration.ofSeconds(10), "eight ACLs", () -> json(viaSurvivor, "/v1/acls").get("acls").size() == 8);
      assertEquals(409, viaSurvivor.post("/v1/acls", describe("bob")).status(), "the recovered singleton knows bob's");
      try (FelixClient carol = client(cluster, "carol", "carol-secret", ClientMode.CLUSTER, null)) {
        assertEquals(List.of("orders"), names(carol.metadata().join()));
      }
    }
  }

  /** Runs the felix command line with {@code env} as its environment and a one-line stdin; its exit status. */
  private static int cli(Map<String, String> env, String... args) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    int code = io.felix.cli.Felix.run(args, new java.io.ByteArrayInputStream("from-the-cli\n".getBytes()),
        new java.io.PrintStream(out, true), new java.io.PrintStream(out, true), env);
    System.out.println("felix " + String.join(" ", args) + " -> " + code + ": " + out);
    return code;
  }

  private static String describe(String principal) {
    return "{\"principal\":\"" + principal + "\",\"resource_type\":\"stream\",\"resource_name\":\"orders\","
        + "\"operation\":\"describe\"}";
  }

  private static List<String> names(MetadataResponse metadata) {
    return metadata.getStreamsList().stream().map(s -> s.getName()).toList();
  }

  private static FelixClient client(BrokerCluster cluster, String user, String password, ClientMode mode,
      BrokerNode only) {
    String bootstrap = only != null ? only.endpoint().clientAddress()
        : String.join(",", cluster.live().stream().map(b -> b.endpoint().clientAddress()).toList());
    return new FelixClient(ClientSettings.builder(bootstrap).mode(mode).credentials(user, password)
        .linger(Duration.ofMillis(1)).retries(20).retryBackoffMax(Duration.ofMillis(200))
        .connectTimeout(Duration.ofSeconds(2)).requestTimeout(Duration.ofSeconds(10)).ackTimeout(Duration.ofSeconds(5))
        .deliveryTimeout(Duration.ofSeconds(30)).build());
  }

  private static int recordsIn(FelixClient client, int shards) {
    int count = 0;
    for (int shard = 0; shard < shards; shard++) {
      count += client.fetch("orders", shard, 0, 1 << 20, 0).join().records().size();
    }
    return count;
  }

  private static int status(Failures.Call call) {
    try {
      return ((AdminClient.Reply) call.run()).status();
    } catch (Exception e) {
      return -1;
    }
  }

  private static JsonNode json(AdminClient admin, String path) {
    try {
      return MAPPER.readTree(admin.get(path).body());
    } catch (Exception e) {
      throw new AssertionError(path + ": " + e, e);
    }
  }

  /** A produce on a fresh connection that did not authenticate. */
  private static Response rawProduce(BrokerNode broker, String stream, int shard) throws Exception {
    HostPort address = HostPort.parse(broker.endpoint().clientAddress());
    try (Socket socket = new Socket(address.host(), address.port())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      CODEC.write(Request.newBuilder().setCorrelationId(1).setProduce(ProduceRequest.newBuilder().setStream(stream)
          .setShard(shard).setRecords(RecordLists.encode(List.of(Record.newBuilder()
          .setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("unauthenticated")).build())))).build(),
          out);
      CODEC.write(Request.newBuilder().setCorrelationId(2).setMetadata(MetadataRequest.getDefaultInstance()).build(),
          out);
      out.flush();
      Response produce = CODEC.parseResponse(CODEC.readFrame(in));
      Response metadata = CODEC.parseResponse(CODEC.readFrame(in));
      assertEquals(ErrorCode.AUTHENTICATION_FAILED, (produce.getCorrelationId() == 2 ? produce : metadata)
          .getError().getCode(), "metadata before authenticating");
      return produce.getCorrelationId() == 1 ? produce : metadata;
    }
  }
}
