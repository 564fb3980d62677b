package io.felix.broker.ops;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What the multi-process tests read from one broker's admin API ({@link AdminClient}), parsed and awaited. */
final class AdminApi {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** One shard as GET /v1/streams/{name} describes it. */
  record Shard(int shard, int leader, List<Integer> replicas, long epoch) {}

  private final AdminClient admin;

  AdminApi(int port) {
    this.admin = AdminClient.local(port);
  }

  /** Sending {@code Authorization: Bearer token}, for brokers with felix.security.admin-authentication on. */
  AdminApi(int port, String token) {
    this.admin = AdminClient.local(port).withToken(token);
  }

  /** The status of GET path, or -1 when nothing answers. */
  int status(String path) throws InterruptedException {
    return admin.status(path);
  }

  /** POST /v1/users: a SCRAM-SHA-256 user with this password; non-2xx answers throw. */
  void createUser(String name, String password) throws IOException, InterruptedException {
    admin.postOk("/v1/users", JSON.createObjectNode().put("name", name).put("password", password).toString());
  }

  /** POST /v1/acls: allows the principal the operation (produce, consume, describe, ...) on the stream. */
  void allowOnStream(String principal, String stream, String operation) throws IOException, InterruptedException {
    admin.postOk("/v1/acls", JSON.createObjectNode().put("principal", principal).put("resource_type", "stream")
        .put("resource_name", stream).put("operation", operation).toString());
  }

  /**
   * Waits until this broker's GET /v1/acls lists {@code count} ACLs of the principal: the singleton pushes users and
   * ACLs to every broker a moment after their 201, in order, so the ACLs' arrival means the user's has too.
   */
  void awaitAcls(String principal, int count, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      var r = admin.get("/v1/acls");
      last = r.status() + " " + r.body();
      if (r.status() == 200) {
        long listed = 0;
        for (JsonNode acl : JSON.readTree(r.body()).get("acls")) {
          listed += principal.equals(acl.path("principal").asText()) ? 1 : 0;
        }
        if (listed == count) {
          return;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError(count + " ACLs of " + principal + " not listed within " + timeout + "; last: " + last);
  }

  void createStream(String name, int shards, int replicationFactor) throws IOException, InterruptedException {
    admin.createStream(name, shards, replicationFactor);
  }

  /** Waits until GET /v1/brokers lists {@code count} live brokers (the singleton registered them all). */
  void awaitLiveBrokers(int count, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      var r = admin.get("/v1/brokers");
      last = r.status() + " " + r.body();
      if (r.status() == 200) {
        long live = 0;
        for (JsonNode b : JSON.readTree(r.body())) {
          live += "live".equals(b.path("state").asText()) ? 1 : 0;
        }
        if (live >= count) {
          return;
        }
      }
      Thread.sleep(250);
    }
    throw new AssertionError(count + " live brokers not listed within " + timeout + "; last: " + last);
  }

  /** The stream's shards, or an empty map when the broker does not answer 200. */
  Map<Integer, Shard> shards(String stream) throws IOException, InterruptedException {
    var r = admin.get("/v1/streams/" + stream);
    Map<Integer, Shard> out = new TreeMap<>();
    if (r.status() != 200) {
      return out;
    }
    for (JsonNode s : JSON.readTree(r.body()).get("shard_assignments")) {
      List<Integer> replicas = new ArrayList<>();
      s.get("replicas").forEach(x -> replicas.add(x.asInt()));
      JsonNode leader = s.get("leader");
      out.put(s.get("shard").asInt(), new Shard(s.get("shard").asInt(),
          leader == null || leader.isNull() ? -1 : leader.asInt(), replicas, s.path("epoch").asLong(-1)));
    }
    return out;
  }

  /**
   * Polls until the stream has {@code count} shards, each led by a broker other than {@code excluded} (-1: any).
   */
  Map<Integer, Shard> awaitLed(String stream, int count, int excluded, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<Integer, Shard> last = Map.of();
    while (System.nanoTime() < deadline) {
      try {
        last = shards(stream);
      } catch (IOException notAnswering) {
        last = Map.of();
      }
      if (last.size() == count && last.values().stream().allMatch(s -> s.leader() >= 0 && s.leader() != excluded)) {
        return last;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("stream " + stream + " did not get " + count + " shards led by brokers other than "
        + excluded + " within " + timeout + "; last: " + last);
  }

  /**
   * Polls until every shard of the stream reports its whole replica set in sync: every follower has fetched from
   * its leader, so each replica can vouch for the shard's records in a failover.
   */
  void awaitInSync(String stream, Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    JsonNode last = null;
    while (System.nanoTime() < deadline) {
      try {
        last = streamDetail(stream);
      } catch (IOException notAnswering) {
        last = null;
      }
      if (last != null && allInSync(last)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("stream " + stream + " did not get every replica in sync within " + timeout
        + "; last: " + last);
  }

  private static boolean allInSync(JsonNode stream) {
    for (JsonNode s : stream.get("shard_assignments")) {
      if (s.path("in_sync").size() != s.get("replicas").size()) {
        return false;
      }
    }
    return true;
  }

  /** GET /v1/streams/{stream} as JSON, or null when the broker does not answer 200. */
  JsonNode streamDetail(String stream) throws IOException, InterruptedException {
    var r = admin.get("/v1/streams/" + stream);
    return r.status() == 200 ? JSON.readTree(r.body()) : null;
  }

  /**
   * GET /v1/groups/{group}: each shard's committed offset (-1 where none is), or an empty map when the broker does
   * not answer 200 (the group has no coordinator yet).
   */
  Map<Integer, Long> groupCommitted(String group) throws IOException, InterruptedException {
    var r = admin.get("/v1/groups/" + group);
    Map<Integer, Long> out = new TreeMap<>();
    if (r.status() == 200) {
      for (JsonNode s : JSON.readTree(r.body()).get("shards")) {
        JsonNode committed = s.path("committed_offset");
        out.put(s.get("shard").asInt(), committed.isNumber() ? committed.asLong() : -1L);
      }
    }
    return out;
  }

  /** Sum of the samples of {@code metric} on this broker's GET /metrics whose labels include {@code label}. */
  double metricSum(String metric, String label) throws IOException, InterruptedException {
    return admin.getOk("/metrics").lines()
        .filter(l -> l.startsWith(metric + "{") && l.contains(label))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }
}
