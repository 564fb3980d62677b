package io.felix.loadgen.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import io.felix.launcher.LocalCluster;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What the nemesis and the rounds ask of the local cluster: who leads what (admin HTTP API), which process is
 * the oldest, and whether every broker is back.
 */
final class ChaosCluster {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration POLL = Duration.ofMillis(500);

  private final LocalCluster local;
  private final String stream;

  ChaosCluster(LocalCluster local, String stream) {
    this.local = local;
    this.stream = stream;
  }

  LocalCluster local() {
    return local;
  }

  String stream() {
    return stream;
  }

  int brokers() {
    return local.brokers();
  }

  /** Each shard's leader, as the first answering broker's singleton view has it. */
  Map<Integer, Integer> leaders() throws IOException, InterruptedException {
    JsonNode detail = JSON.readTree(anyAdmin().getOk("/v1/streams/" + stream));
    Map<Integer, Integer> out = new TreeMap<>();
    for (JsonNode shard : detail.path("shard_assignments")) {
      out.put(shard.path("shard").asInt(), shard.path("leader").asInt());
    }
    return out;
  }

  /** The broker leading the most shards (the highest id on a tie). */
  int mostLeaders() throws IOException, InterruptedException {
    return mostLeaders(b -> true);
  }

  /** Among the brokers {@code eligible} accepts, the one leading the most shards (the highest id on a tie). */
  int mostLeaders(java.util.function.IntPredicate eligible) throws IOException, InterruptedException {
    int[] counts = new int[brokers()];
    leaders().values().forEach(b -> counts[b]++);
    int best = -1;
    for (int b = 0; b < counts.length; b++) {
      if (eligible.test(b) && (best < 0 || counts[b] >= counts[best])) {
        best = b;
      }
    }
    if (best < 0) {
      throw new IOException("no broker is eligible");
    }
    return best;
  }

  /** Whether some replica on {@code broker} reports its log failed (GET /v1/streams/{stream}'s replica states). */
  boolean hasFailedReplica(int broker) throws IOException, InterruptedException {
    JsonNode detail = JSON.readTree(anyAdmin().getOk("/v1/streams/" + stream));
    for (JsonNode shard : detail.path("shard_assignments")) {
      if ("failed".equals(shard.path("replica_states").path(Integer.toString(broker)).asText())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The broker hosting the placement singleton: Pekko runs a cluster singleton on the oldest member, and a
   * restarted broker joins the running cluster as its youngest, so that is the broker whose process started
   * first.
   */
  int singletonHost() throws IOException {
    int oldest = -1;
    Instant oldestStart = Instant.MAX;
    for (int b = 0; b < brokers(); b++) {
      Optional<Instant> start = ProcessHandle.of(local.pid(b)).flatMap(h -> h.info().startInstant());
      if (start.isPresent() && start.get().isBefore(oldestStart)) {
        oldest = b;
        oldestStart = start.get();
      }
    }
    if (oldest < 0) {
      throw new IOException("no broker process is running");
    }
    return oldest;
  }

  /** Waits until every broker process answers GET /health (after a restart of them all). */
  void awaitHealthy(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    for (int b = 0; b < brokers(); b++) {
      while (local.admin(b).status("/health") != 200) {
        if (System.nanoTime() > deadline) {
          throw new IOException("broker " + b + " does not answer GET /health " + timeout.toSeconds() + " s on");
        }
        Thread.sleep(POLL.toMillis());
      }
    }
  }

  /**
   * Waits until the cluster is whole again: every broker answers GET /ready and the singleton lists every broker
   * as live (or draining). Throws naming what is still missing.
   */
  void awaitWhole(Duration timeout) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    String missing;
    while ((missing = notWhole()) != null) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the cluster is not whole " + timeout.toSeconds() + " s on: " + missing);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** What keeps the cluster from being whole, or null. */
  private String notWhole() throws InterruptedException {
    List<Integer> unready = new ArrayList<>();
    for (int b = 0; b < brokers(); b++) {
      if (local.admin(b).status("/ready") != 200) {
        unready.add(b);
      }
    }
    if (!unready.isEmpty()) {
      return "brokers " + unready + " not ready";
    }
    try {
      List<String> listed = new ArrayList<>();
      long live = 0;
      for (JsonNode broker : JSON.readTree(local.admin(0).getOk("/v1/brokers"))) {
        listed.add(broker.path("id").asInt() + "=" + broker.path("state").asText());
        // A broker may still be draining when a drain round failed; it is up all the same.
        live += List.of("live", "draining").contains(broker.path("state").asText()) ? 1 : 0;
      }
      return live == brokers() ? null : "the singleton lists brokers " + listed;
    } catch (IOException e) {
      return "GET /v1/brokers failed: " + e.getMessage();
    }
  }

  /**
   * Waits until every live, non-draining broker leads at least its share of the stream's shards (shards / such
   * brokers, rounded down): a broker that came back, was drained and undrained, or lost its leaders to a failover
   * gets leaders back from the singleton's rebalancing. Returns how long that took; throws naming a broker short of
   * its share at the bound.
   */
  Duration awaitLeaderShare(Duration timeout) throws IOException, InterruptedException {
    long start = System.nanoTime();
    String shortOfShare;
    while ((shortOfShare = belowLeaderShare()) != null) {
      if (System.nanoTime() - start > timeout.toNanos()) {
        throw new IOException(shortOfShare + " " + timeout.toSeconds() + " s after the cluster was whole");
      }
      Thread.sleep(POLL.toMillis());
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  /** A live, non-draining broker leading fewer than its share of the stream's shards, or null. */
  private String belowLeaderShare() throws InterruptedException {
    try {
      Map<Integer, Integer> leaders = leaders();
      List<Integer> live = new ArrayList<>();
      for (JsonNode broker : JSON.readTree(anyAdmin().getOk("/v1/brokers"))) {
        if ("live".equals(broker.path("state").asText())) {
          live.add(broker.path("id").asInt());
        }
      }
      if (live.isEmpty()) {
        return "the singleton lists no live broker";
      }
      int share = leaders.size() / live.size();
      Map<Integer, Integer> led = new TreeMap<>();
      live.forEach(b -> led.put(b, 0));
      leaders.values().forEach(b -> led.computeIfPresent(b, (broker, n) -> n + 1));
      for (Map.Entry<Integer, Integer> e : led.entrySet()) {
        if (e.getValue() < share) {
          return "broker " + e.getKey() + " leads " + e.getValue() + " of the " + leaders.size() + " shards of "
              + stream + ", fewer than its share " + share + " (leaders by broker " + led + ")";
        }
      }
      return null;
    } catch (IOException e) {
      return "asking who leads failed: " + e.getMessage();
    }
  }

  /**
   * Waits until every replica of every shard of {@code streams} has digested its log below its leader's commit
   * offset (GET /v1/streams/{name}/replica-digests), or the bound passes; returns the last verdict, which names
   * diverged shards, and shards still without a digest on every replica at the bound.
   */
  ReplicaDigestCheck.Verdict awaitReplicaDigests(List<String> streams, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      ReplicaDigestCheck.Verdict verdict = ReplicaDigestCheck.Verdict.AGREED;
      for (String name : streams) {
        verdict = verdict.plus(replicaDigests(name));
      }
      if (verdict.settled() || System.nanoTime() > deadline) {
        return verdict;
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private ReplicaDigestCheck.Verdict replicaDigests(String name) throws InterruptedException {
    try {
      return ReplicaDigestCheck.check(JSON.readTree(anyAdmin().getOk("/v1/streams/" + name + "/replica-digests")));
    } catch (IOException e) {
      return new ReplicaDigestCheck.Verdict(List.of(), List.of(new ReplicaDigestCheck.Shard(name, -1,
          "GET /v1/streams/" + name + "/replica-digests failed: " + e.getMessage())));
    }
  }

  /** The admin API of the first broker that answers GET /health. */
  AdminClient anyAdmin() throws IOException, InterruptedException {
    for (int b = 0; b < brokers(); b++) {
      if (local.admin(b).status("/health") == 200) {
        return local.admin(b);
      }
    }
    throw new IOException("no broker answers GET /health");
  }
}
