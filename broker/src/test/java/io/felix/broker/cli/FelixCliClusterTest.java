package io.felix.broker.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.cli.Felix;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Every felix command against a real cluster (three brokers in this JVM): the addresses come from FELIX_ADMIN and
 * FELIX_BOOTSTRAP as bin/felix sets them; each command's exit status, table and JSON are checked, and what it
 * changed is read back through the admin API.
 */
@Tag("cluster")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 3, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class FelixCliClusterTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  static BrokerCluster cluster;
  static Map<String, String> env;

  record Outcome(int code, String out, String err) {
    JsonNode json() {
      try {
        return JSON.readTree(out);
      } catch (java.io.IOException e) {
        throw new AssertionError("not JSON: " + out, e);
      }
    }

    List<String> lines() {
      return out.lines().toList();
    }
  }

  @BeforeAll
  static void start() {
    cluster = BrokerCluster.start(3, Map.of());
    cluster.awaitBrokersLive(cluster.broker(0), 3);
    // Broker 0's admin address first, then a port nothing listens on: the first that answers serves.
    env = Map.of(
        "FELIX_ADMIN", "127.0.0.1:" + cluster.broker(1).adminPort() + ",127.0.0.1:" + cluster.broker(0).adminPort(),
        "FELIX_BOOTSTRAP", String.join(",", cluster.live().stream().map(b -> b.endpoint().clientAddress()).toList()));
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  static Outcome felixWithInput(String stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    InputStream in = new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8));
    int code = Felix.run(args, in, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), env);
    return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  static Outcome felix(String... args) {
    return felixWithInput("", args);
  }

  static Outcome ok(String... args) {
    Outcome o = felix(args);
    assertEquals(0, o.code(), String.join(" ", args) + ": " + o);
    return o;
  }

  @Test
  @Order(1)
  void streamsAreCreatedListedDescribedAndDeleted() {
    Outcome created = ok("stream", "create", "listed", "--shards", "2");
    assertEquals("stream 'listed' created with 2 shards", created.out().strip());
    Outcome again = felix("stream", "create", "listed", "--shards", "2");
    assertEquals(1, again.code());
    assertEquals("felix stream create: stream 'listed' already exists (POST /v1/streams answered 409)", again.err().strip());

    JsonNode listed = ok("stream", "list", "--output", "json").json();
    JsonNode stream = null;
    for (JsonNode s : listed) {
      stream = s.get("name").asText().equals("listed") ? s : stream;
    }
    assertEquals(2, stream.get("shards").asInt());
    assertEquals(3, stream.get("replication_factor").asInt());
    List<String> table = ok("stream", "list").lines();
    assertEquals(List.of("NAME", "KIND", "SHARDS", "REPLICATION-FACTOR", "UNDER-REPLICATED"),
        List.of(table.get(0).split("\\s+")));
    assertTrue(table.stream().anyMatch(l -> l.matches("listed\\s+stream\\s+2\\s+3\\s+\\d+")), table.toString());

    cluster.awaitReady();
    List<String> shards = ok("stream", "describe", "listed").lines();
    assertEquals(3, shards.size(), "a header and a row per shard: " + shards);
    assertTrue(shards.get(1).matches("0\\s+\\d\\s+\\d,\\d,\\d\\s+.*"), shards.get(1));
    assertEquals(2, ok("stream", "describe", "listed", "-o", "json").json().get("shard_assignments").size());

    assertEquals("deleted stream listed", ok("stream", "delete", "listed").out().strip());
    Outcome gone = felix("stream", "describe", "listed");
    assertEquals(1, gone.code());
    assertTrue(gone.err().contains("stream 'listed' does not exist"), gone.err());
    assertEquals(2, felix("stream", "create").code(), "NAME missing: a usage error");
  }

  @Test
  @Order(2)
  void consoleProducerWritesLinesThatTheConsoleConsumerPrints() throws Exception {
    ok("stream", "create", "lines", "--shards", "3");
    cluster.awaitReady();
    Outcome produced = felixWithInput("first\nsecond\nthird\n", "produce", "lines", "--key", "k", "--header", "source=test",
        "--acks", "all");
    assertEquals(0, produced.code(), produced.toString());
    assertEquals("produced 3 records to lines", produced.err().strip());

    // One key: one shard, in the order written.
    List<String> read = ok("consume", "lines", "--from-beginning").lines();
    assertEquals(3, read.size(), read.toString());
    int shard = Integer.parseInt(read.get(0).split("\t")[0]);
    assertEquals(List.of(shard + "\t0\tk\tfirst", shard + "\t1\tk\tsecond", shard + "\t2\tk\tthird"), read);
    assertEquals(List.of(shard + "\t0\tk\tfirst"), ok("consume", "lines", "--from-beginning", "--max", "1").lines());
    JsonNode record = JSON.readTree(ok("consume", "lines", "--from-beginning", "--max", "1", "-o", "json").out());
    assertEquals("first", record.get("value").asText());
    assertEquals("test", record.get("headers").get("source").asText());
    Outcome fromEnd = ok("consume", "lines");
    assertEquals("", fromEnd.out());
    assertTrue(fromEnd.err().startsWith("read 0 records from lines (reading started at the end"), fromEnd.err());

    // --follow waits for records written after it started.
    CompletableFuture<Outcome> following = CompletableFuture.supplyAsync(
        () -> felix("consume", "lines", "--follow", "--max", "2", "--shard", Integer.toString(shard)));
    Thread.sleep(1000);
    assertEquals(0, felixWithInput("fourth\nfifth\n", "produce", "lines", "--key", "k").code());
    Outcome followed = following.get(30, TimeUnit.SECONDS);
    assertEquals(List.of(shard + "\t3\tk\tfourth", shard + "\t4\tk\tfifth"), followed.lines(), followed.err());

    Outcome unknown = felixWithInput("x\n", "produce", "no-such-stream");
    assertEquals(1, unknown.code());
    assertTrue(unknown.err().contains("stream no-such-stream: UNKNOWN_STREAM"), unknown.err());
  }

  @Test
  @Order(3)
  void statusBrokersPlacementAndMoves() {
    ok("stream", "create", "moved", "--shards", "3");
    cluster.awaitReady();
    List<String> status = ok("status").lines();
    assertEquals(List.of("STREAM", "BROKER-0", "BROKER-1", "BROKER-2"), List.of(status.get(0).split("\\s+")));
    assertTrue(status.stream().anyMatch(l -> l.matches("moved\\s+1\\s+1\\s+1")), status.toString());
    assertTrue(status.get(status.size() - 1).startsWith("(total)"), status.toString());
    assertEquals(1, ok("status", "-o", "json").json().get("streams").get("moved").get("0").asInt());

    List<String> brokers = ok("broker", "list").lines();
    assertEquals(4, brokers.size(), brokers.toString());
    assertTrue(brokers.get(1).matches("0\\s+-\\s+live\\s+127\\.0\\.0\\.1:\\d+\\s+\\d+\\s+\\d+\\s+\\d+\\s+\\d+"),
        brokers.get(1));

    ok("placement", "pause");
    assertEquals(true, ok("placement", "show", "-o", "json").json().get("paused").asBoolean());
    assertTrue(ok("placement", "show").out().lines().anyMatch(l -> l.matches("paused\\s+true")));
    assertTrue(ok("placement", "simulate").out().contains("\"converged\""));

    int leader = cluster.get(cluster.broker(0), "/v1/streams/moved").json().get("shard_assignments").get(0)
        .get("leader").asInt();
    int to = (leader + 1) % 3;
    ok("move", "start", "moved", "0", "--to", Integer.toString(to));
    BrokerCluster.await(Duration.ofSeconds(30), "moved/0 led by " + to, () -> cluster.get(cluster.broker(0),
        "/v1/streams/moved").json().get("shard_assignments").get(0).get("leader").asInt() == to);
    assertTrue(ok("move", "list").lines().stream()
        .anyMatch(l -> l.matches("\\S+\\s+moved\\s+0\\s+" + leader + "\\s+" + to + "\\s+completed\\s+.*")),
        ok("move", "list").out());
    ok("placement", "resume");
    assertEquals(false, ok("placement", "show", "-o", "json").json().get("paused").asBoolean());

    Outcome unknownBroker = felix("broker", "drain", "9");
    assertEquals(1, unknownBroker.code());
    assertTrue(unknownBroker.err().contains("broker 9 is not known"), unknownBroker.err());
    Outcome notDrained = felix("broker", "remove", "2");
    assertEquals(1, notDrained.code());
    assertTrue(notDrained.err().contains("answered 409"), notDrained.err());
  }

  @Test
  @Order(4) // last: a draining broker takes no new replicas, so the streams above could not be created after it
  void drainingABrokerShowsInTheBrokerList() {
    BrokerNode last = cluster.broker(2);
    assertEquals("broker 2 is draining", ok("broker", "drain", Integer.toString(last.id())).out().strip());
    assertEquals("draining", ok("broker", "list", "-o", "json").json().get(2).get("state").asText());
  }
}
