package io.felix.broker;

import io.felix.broker.node.BrokerNode;

import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.admin.AdminClient;
import io.felix.protocol.client.Acks;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several real brokers in this JVM: their own ActorSystems on 127.0.0.1 (port 0), one in-memory H2 journal
 * shared by all (as a database server would be), admin HTTP on port 0. Brokers are stopped youngest first.
 */
public final class BrokerCluster implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BrokerCluster.class);
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private final String journalUrl = "jdbc:h2:mem:felix-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
  private final Map<String, Object> overrides;
  private final Path dataRoot;
  private final List<BrokerNode> brokers = new ArrayList<>();

  public record Reply(int status, String body) {
    public JsonNode json() {
      try {
        return MAPPER.readTree(body);
      } catch (IOException e) {
        throw new AssertionError("not JSON: " + body, e);
      }
    }
  }

  /** The TLS context of the admin calls and {@link #client()} when the brokers run felix.tls; null = plaintext. */
  private javax.net.ssl.SSLContext clientTls;

  /** Makes the admin calls and {@link #client()} speak TLS with {@code tls} (brokers under felix.tls). */
  public void clientTls(javax.net.ssl.SSLContext tls) {
    this.clientTls = tls;
  }

  /** The bearer token of the admin calls when the brokers run felix.security.admin-authentication; null = none. */
  private String adminToken;

  /** Makes the admin calls send {@code token} (brokers with admin authentication on). */
  public void adminToken(String token) {
    this.adminToken = token;
  }

  public BrokerCluster(Map<String, Object> overrides) {
    this.overrides = new HashMap<>(overrides);
    try {
      this.dataRoot = Files.createTempDirectory("felix-cluster");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Starts brokers 0..n-1 and waits until all are up members. */
  public static BrokerCluster start(int n, Map<String, Object> overrides) {
    BrokerCluster cluster = new BrokerCluster(overrides);
    for (int i = 0; i < n; i++) {
      cluster.add(i, "");
    }
    cluster.awaitUp(n);
    return cluster;
  }

  /** Sets a config value for the brokers added from now on (e.g. to change how the next ones stop). */
  public void override(String key, Object value) {
    overrides.put(key, value);
  }

  public BrokerNode add(int id, String zone) {
    Map<String, Object> config = new HashMap<>(overrides);
    config.put("felix.broker.id", id);
    config.put("felix.broker.zone", zone);
    config.put("felix.broker.data-dir", dataRoot.resolve("broker-" + id).toString());
    config.put("felix.cluster.port", 0);
    config.put("felix.broker.client-port", 0);
    config.put("felix.broker.replication-port", 0);
    config.put("felix.http.port", 0);
    config.putIfAbsent("felix.persistence.url", journalUrl);
    config.putIfAbsent("felix.control.placement-interval", "500ms");
    Config user = ConfigFactory.parseMap(config);
    BrokerNode broker = BrokerNode.start(user);
    BrokerNode seed = live().isEmpty() ? broker : live().get(0);
    broker.join(seed.address());
    brokers.add(broker);
    return broker;
  }

  public Path dataDir(int brokerId) {
    return dataRoot.resolve("broker-" + brokerId);
  }

  public List<BrokerNode> live() {
    return brokers.stream().filter(b -> !b.system().getWhenTerminated().toCompletableFuture().isDone()).toList();
  }

  public BrokerNode broker(int id) {
    return live().stream().filter(b -> b.id() == id).findFirst().orElseThrow();
  }

  public void awaitUp(int members) {
    await(Duration.ofSeconds(20), "all brokers up members", () -> live().stream().allMatch(b -> {
      var state = Cluster.get(b.system()).state();
      int up = 0;
      for (var m : state.getMembers()) {
        if (m.status().equals(MemberStatus.up())) {
          up++;
        }
      }
      return up == members;
    }));
  }

  /** The broker that currently hosts the placement singleton: the oldest up member. */
  public BrokerNode singletonHost() {
    BrokerNode any = live().get(0);
    var oldest = Cluster.get(any.system()).state().getMembers();
    org.apache.pekko.cluster.Member first = null;
    for (var m : oldest) {
      if (m.status().equals(MemberStatus.up()) && (first == null || m.isOlderThan(first))) {
        first = m;
      }
    }
    var address = first.address();
    return live().stream().filter(b -> b.address().equals(address)).findFirst().orElseThrow();
  }

  public Reply get(BrokerNode via, String path) {
    return send(via, admin -> admin.get(path));
  }

  /**
   * GET {@code path} on {@code via}, read as JSON once it answers 200. A 503 means the placement singleton did not
   * answer within felix.http.singleton-timeout, as happens while it starts on another broker after its host was
   * lost: it is asked again for up to 30 s (and logged). Any other status fails at once, naming the reply.
   */
  public JsonNode getJson(BrokerNode via, String path) {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Reply reply = get(via, path);
    while (reply.status() == 503 && System.nanoTime() < deadline) {
      log.info("GET {} on broker {} answered 503 ({}); asking again", path, via.id(), reply.body());
      reply = get(via, path);
    }
    if (reply.status() != 200) {
      fail("GET " + path + " on broker " + via.id() + " answered " + reply.status() + ": " + reply.body());
    }
    return reply.json();
  }

  public Reply post(BrokerNode via, String path, String json) {
    return send(via, admin -> admin.post(path, json));
  }

  public Reply delete(BrokerNode via, String path) {
    return send(via, admin -> admin.delete(path));
  }

  public Reply patch(BrokerNode via, String path, String json) {
    return send(via, admin -> admin.patch(path, json));
  }

  private interface AdminCall {
    AdminClient.Reply on(AdminClient admin) throws IOException, InterruptedException;
  }

  private Reply send(BrokerNode via, AdminCall call) {
    try {
      AdminClient admin = new AdminClient("127.0.0.1", via.adminPort(), clientTls);
      AdminClient.Reply reply = call.on(adminToken == null ? admin : admin.withToken(adminToken));
      return new Reply(reply.status(), reply.body());
    } catch (IOException | InterruptedException e) {
      throw new AssertionError("HTTP to broker " + via.id() + " failed: " + e, e);
    }
  }

  /** Waits until every live broker answers GET /ready with 200 (up member, holds a table). */
  public void awaitReady() {
    await(Duration.ofSeconds(20), "every broker ready", () -> live().stream().allMatch(b -> get(b, "/ready").status() == 200));
  }

  /** A cluster-mode client bootstrapped from every live broker; quorum acks; ambiguous failures not retried. */
  public FelixClient client() {
    return client(Acks.QUORUM);
  }

  /** {@link #client()} with the given acks level. */
  public FelixClient client(Acks acks) {
    String bootstrap = String.join(",", live().stream().map(b -> b.endpoint().clientAddress()).toList());
    return new FelixClient(ClientSettings.builder(bootstrap)
        .acks(acks)
        .linger(Duration.ofMillis(1))
        .retries(100)
        .retryBackoffMax(Duration.ofMillis(200))
        .metadataMaxAge(Duration.ofSeconds(1))
        .connectTimeout(Duration.ofSeconds(1))
        .requestTimeout(Duration.ofSeconds(5))
        .ackTimeout(Duration.ofSeconds(3))
        .deliveryTimeout(Duration.ofSeconds(60))
        .tls(clientTls)
        .build());
  }

  /** Waits until the admin API of {@code via} lists exactly {@code n} live brokers. */
  public void awaitBrokersLive(BrokerNode via, int n) {
    await(Duration.ofSeconds(30), n + " brokers registered and live", () -> {
      Reply r = get(via, "/v1/brokers");
      if (r.status() != 200) {
        return false;
      }
      int live = 0;
      for (JsonNode b : r.json()) {
        live += b.get("state").asText().equals("live") ? 1 : 0;
      }
      return live == n;
    });
  }

  /**
   * Creates {@code stream} through {@code via}'s admin API, waits until every shard is served, then pauses
   * placement: leadership then changes only through failover, so a test measures the fault alone.
   */
  public void createStreamAndPausePlacement(BrokerNode via, String stream, int shards) {
    org.junit.jupiter.api.Assertions.assertEquals(201, post(via, "/v1/streams",
        "{\"name\":\"" + stream + "\",\"shards\":" + shards + ",\"replication_factor\":3}").status());
    awaitReady();
    org.junit.jupiter.api.Assertions.assertEquals(200, post(via, "/v1/placement/pause", "").status());
  }

  /** The shards of {@code stream} that broker {@code leader} leads, per the admin API of {@code via}. */
  public List<Integer> shardsLedBy(BrokerNode via, String stream, int leader) {
    List<Integer> led = new ArrayList<>();
    for (JsonNode shard : getJson(via, "/v1/streams/" + stream).get("shard_assignments")) {
      if (shard.get("leader").asInt() == leader) {
        led.add(shard.get("shard").asInt());
      }
    }
    return led;
  }

  /** Polls the condition every 50 ms until true, failing with {@code what} after {@code timeout}. */
  public static void await(Duration timeout, String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        fail("timed out after " + timeout + " waiting for " + what);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for " + what);
      }
    }
  }

  public void stop(BrokerNode broker) {
    broker.close();
  }

  @Override
  public void close() {
    List<BrokerNode> running = new ArrayList<>(live());
    for (int i = running.size() - 1; i >= 0; i--) {
      running.get(i).close();
    }
    try (var paths = Files.walk(dataRoot)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a leftover temporary directory is harmless
    }
  }
}
