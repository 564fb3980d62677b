package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import io.felix.broker.log.BatchDecoder;
import io.felix.broker.log.LogBatch;
import io.felix.broker.node.BrokerNode;
import io.felix.client.FelixCache;
import io.felix.client.FelixClient;
import io.felix.client.RecordMetadata;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * GET /v1/streams/{name}/replica-digests on three brokers: once records are written and every follower has caught
 * up, each shard of a stream and of a cache shows its three replicas digested below exactly the commit offset its
 * leader reports (GET /v1/streams/{name}), with one digest; an unknown stream is a JSON 404. A follower holding
 * another batch below the commit offset makes its shard unequal.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ReplicaDigestClusterTest {

  private static final int SHARDS = 3;

  @Test
  void everyShardsReplicasDigestTheSameLogBelowTheLeadersCommitOffset() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode via = cluster.broker(1);
      cluster.awaitBrokersLive(via, 3);
      assertEquals(201, cluster.post(via, "/v1/streams",
          "{\"name\":\"digested\",\"shards\":" + SHARDS + ",\"replication_factor\":3}").status());
      assertEquals(201, cluster.post(via, "/v1/caches",
          "{\"name\":\"digested-cache\",\"shards\":" + SHARDS + ",\"replication_factor\":3}").status());
      cluster.awaitReady();

      try (FelixClient client = cluster.client()) {
        List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
          acks.add(client.produce("digested", i % SHARDS, new byte[0],
              ("record-" + i).getBytes(StandardCharsets.UTF_8), List.of()));
          if (i % 10 == 9) {
            client.flush(); // many batches, not one per shard
          }
        }
        client.flush();
        for (CompletableFuture<RecordMetadata> ack : acks) {
          ack.get(30, TimeUnit.SECONDS);
        }
        FelixCache cache = client.cache("digested-cache");
        for (int i = 0; i < 60; i++) {
          // 20 keys written 3 times: the cache's log holds superseded entries for its compaction.
          cache.put(("k" + i % 20).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8))
              .get(30, TimeUnit.SECONDS);
        }
      }

      for (String stream : List.of("digested", "digested-cache")) {
        // A follower's first fetch after the last write can land after the leader's answer: wait until all agree.
        BrokerCluster.await(Duration.ofSeconds(30), "every shard of " + stream + " equal on every replica",
            () -> allEqual(cluster.get(via, "/v1/streams/" + stream + "/replica-digests")));
        Map<Integer, Long> commitOffsets = commitOffsets(cluster.get(via, "/v1/streams/" + stream));
        JsonNode digests = cluster.get(via, "/v1/streams/" + stream + "/replica-digests").json();

        assertEquals(stream, digests.get("stream").asText());
        assertEquals(SHARDS, digests.get("shards").size(), digests.toString());
        for (JsonNode shard : digests.get("shards")) {
          long commit = shard.get("commit_offset").asLong();
          assertEquals(commitOffsets.get(shard.get("shard").asInt()), commit, "the leader's own: " + shard);
          assertTrue(commit > 0, shard.toString());
          assertTrue(shard.get("equal").asBoolean(), shard.toString());
          assertEquals(3, shard.get("replicas").size(), shard.toString());
          Set<Integer> brokers = new HashSet<>();
          Set<String> seen = new HashSet<>();
          for (JsonNode replica : shard.get("replicas")) {
            brokers.add(replica.get("broker").asInt());
            seen.add(replica.get("digest").asText());
            assertEquals(commit, replica.get("digested_to").asLong(), replica.toString());
            assertEquals(0, replica.get("log_start").asLong(), replica.toString());
            assertTrue(replica.get("log_end").asLong() >= commit, replica.toString());
            assertTrue(replica.get("batches").asLong() > 0, replica.toString());
            assertTrue(replica.get("digest").asText().matches("[0-9a-f]{8}"), replica.toString());
          }
          assertEquals(Set.of(0, 1, 2), brokers, shard.toString());
          assertEquals(1, seen.size(), "one digest per shard: " + shard);
        }
      }

      Reply unknown = cluster.get(via, "/v1/streams/nope/replica-digests");
      assertEquals(404, unknown.status(), unknown.body());
      assertEquals("stream 'nope' does not exist", unknown.json().get("error").asText());
      assertEquals("not_found", unknown.json().get("code").asText());
    }
  }

  /**
   * A follower's batch rewritten on disk while its broker was down, with a valid CRC (so the log opens and the
   * follower, whose log ends where the leader's does at the same epoch, truncates nothing): the shard is not equal
   * and that replica's digest is the odd one out.
   */
  @Test
  void aFollowerHoldingAnotherBatchBelowTheCommitOffsetIsTheOddDigestOut() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of())) {
      BrokerNode first = cluster.broker(0);
      cluster.awaitBrokersLive(first, 3);
      cluster.createStreamAndPausePlacement(first, "forked", 1); // no move may rewrite the replica set meanwhile
      try (FelixClient client = cluster.client()) {
        for (int i = 0; i < 30; i++) {
          client.produce("forked", 0, new byte[0], ("record-" + i).getBytes(StandardCharsets.UTF_8), List.of())
              .get(30, TimeUnit.SECONDS);
        }
      }
      BrokerCluster.await(Duration.ofSeconds(30), "shard 0 equal on every replica",
          () -> allEqual(cluster.get(first, "/v1/streams/forked/replica-digests")));
      int leader = cluster.get(first, "/v1/streams/forked").json().get("shard_assignments").get(0).get("leader")
          .asInt();
      int victim = (leader + 1) % 3;
      BrokerNode via = cluster.broker(leader);
      Path segment = cluster.dataDir(victim).resolve("forked-0").resolve("00000000000000000000.log");

      cluster.stop(cluster.broker(victim));
      rewriteFirstBatch(segment);
      cluster.add(victim, "");
      cluster.awaitUp(3);

      BrokerCluster.await(Duration.ofSeconds(60), "broker " + victim + "'s replica digested again", () -> {
        JsonNode shard = cluster.get(via, "/v1/streams/forked/replica-digests").json().get("shards").get(0);
        for (JsonNode replica : shard.get("replicas")) {
          if (!replica.has("digest")) {
            return false;
          }
        }
        return true;
      });
      JsonNode shard = cluster.get(via, "/v1/streams/forked/replica-digests").json().get("shards").get(0);
      System.out.println("replica digests with broker " + victim + "'s first batch rewritten: " + shard);
      assertFalse(shard.get("equal").asBoolean(), shard.toString());
      Map<Integer, String> digests = new HashMap<>();
      shard.get("replicas").forEach(r -> digests.put(r.get("broker").asInt(), r.get("digest").asText()));
      Set<String> others = new HashSet<>();
      digests.forEach((broker, digest) -> {
        if (broker != victim) {
          others.add(digest);
        }
      });
      assertEquals(1, others.size(), "the two untouched replicas agree: " + shard);
      assertNotEquals(others.iterator().next(), digests.get(victim), shard.toString());
    }
  }

  /** Rewrites the first batch of a segment with one byte of its payload changed, and a CRC that matches. */
  private static void rewriteFirstBatch(Path segment) throws Exception {
    ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(segment));
    LogBatch batch = new BatchDecoder(file).next();
    byte[] payload = new byte[batch.payloadLength()];
    batch.payload().duplicate().get(payload);
    byte[] marker = "record-".getBytes(StandardCharsets.UTF_8);
    int at = indexOf(payload, marker);
    assertTrue(at >= 0, "the first batch holds a record value");
    payload[at] = 'R';
    ByteBuffer rewritten = LogBatch.encode(batch.baseOffset(), batch.recordCount(), batch.leaderEpoch(),
        batch.firstTimestamp(), batch.maxTimestamp(), batch.producer(), ByteBuffer.wrap(payload));
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
      channel.write(rewritten, 0);
      channel.force(true);
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      if (Arrays.equals(haystack, i, i + needle.length, needle, 0, needle.length)) {
        return i;
      }
    }
    return -1;
  }

  private static boolean allEqual(Reply reply) {
    if (reply.status() != 200) {
      return false;
    }
    for (JsonNode shard : reply.json().get("shards")) {
      if (!shard.get("equal").asBoolean()) {
        return false;
      }
    }
    return true;
  }

  private static Map<Integer, Long> commitOffsets(Reply detail) {
    Map<Integer, Long> out = new HashMap<>();
    for (JsonNode shard : detail.json().get("shard_assignments")) {
      out.put(shard.get("shard").asInt(), shard.get("commit_offset").asLong());
    }
    return out;
  }
}
