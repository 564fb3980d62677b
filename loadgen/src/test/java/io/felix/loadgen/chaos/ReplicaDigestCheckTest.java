package io.felix.loadgen.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The round's replica check reads GET /v1/streams/{name}/replica-digests and compares the digests itself. */
class ReplicaDigestCheckTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static String digested(int broker, String digest) {
    return "{\"broker\":" + broker + ",\"log_start\":0,\"log_end\":160,\"digested_to\":150,\"batches\":20,"
        + "\"digest\":\"" + digest + "\"}";
  }

  private static String shard(int shard, String... replicas) {
    return "{\"shard\":" + shard + ",\"leader\":0,\"commit_offset\":150,\"replicas\":[" + String.join(",", replicas)
        + "],\"equal\":true}";
  }

  private static JsonNode answer(String... shards) throws Exception {
    return JSON.readTree("{\"stream\":\"chaos\",\"shards\":[" + String.join(",", shards) + "]}");
  }

  @Test
  void replicasWithOneDigestEachAgree() throws Exception {
    ReplicaDigestCheck.Verdict verdict = ReplicaDigestCheck.check(answer(
        shard(0, digested(0, "1a2b3c4d"), digested(1, "1a2b3c4d"), digested(2, "1a2b3c4d")),
        shard(1, digested(0, "00000007"), digested(1, "00000007"), digested(2, "00000007"))));

    assertTrue(verdict.agreed());
    assertTrue(verdict.settled());
    assertNull(verdict.problem());
  }

  @Test
  void oneReplicaWithAnotherDigestDivergedAndIsNamedWithEveryReplicasDigest() throws Exception {
    // The broker's own "equal" says true here: the check does not take its word for it.
    ReplicaDigestCheck.Verdict verdict = ReplicaDigestCheck.check(answer(
        shard(0, digested(0, "1a2b3c4d"), digested(1, "1a2b3c4d"), digested(2, "1a2b3c4d")),
        shard(4, digested(0, "1a2b3c4d"), digested(1, "deadbeef"), digested(2, "1a2b3c4d"))));

    assertTrue(verdict.settled(), "every replica digested: waiting longer changes nothing");
    assertFalse(verdict.agreed());
    assertEquals(List.of(new ReplicaDigestCheck.Shard("chaos", 4, "below commit offset 150 (leader 0): "
        + "broker 0 0..150 in 20 batches, digest 1a2b3c4d, broker 1 0..150 in 20 batches, digest deadbeef, "
        + "broker 2 0..150 in 20 batches, digest 1a2b3c4d")), verdict.diverged());
    assertEquals("1 shard(s) diverged: chaos/4 below commit offset 150 (leader 0): broker 0 0..150 in 20 batches, "
        + "digest 1a2b3c4d, broker 1 0..150 in 20 batches, digest deadbeef, broker 2 0..150 in 20 batches, "
        + "digest 1a2b3c4d", verdict.problem());
  }

  @Test
  void aReplicaWhoseLogEndsBelowTheCommitOffsetIsPendingNotDiverged() throws Exception {
    ReplicaDigestCheck.Verdict verdict = ReplicaDigestCheck.check(answer(
        shard(2, digested(0, "1a2b3c4d"), "{\"broker\":1,\"short\":true,\"log_start\":0,\"log_end\":120}",
            digested(2, "1a2b3c4d"))));

    assertFalse(verdict.settled());
    assertEquals(List.of(), verdict.diverged());
    assertEquals("1 shard(s) without a digest on every replica: chaos/2 below commit offset 150 (leader 0): "
        + "broker 0 0..150 in 20 batches, digest 1a2b3c4d, broker 1 short (log 0..120), "
        + "broker 2 0..150 in 20 batches, digest 1a2b3c4d", verdict.problem());
  }

  @Test
  void anUnansweredReplicaOrAnUnknownCommitOffsetIsPending() throws Exception {
    ReplicaDigestCheck.Verdict verdict = ReplicaDigestCheck.check(answer(
        shard(0, digested(0, "1a2b3c4d"), "{\"broker\":1,\"error\":\"no answer within 15 s\"}"),
        "{\"shard\":1,\"leader\":2,\"commit_offset\":null,\"error\":\"the leader (broker 2) did not report its "
            + "commit offset\",\"replicas\":[],\"equal\":false}"));

    assertEquals(List.of("chaos/0 below commit offset 150 (leader 0): broker 0 0..150 in 20 batches, digest "
            + "1a2b3c4d, broker 1 error: no answer within 15 s",
            "chaos/1 has no commit offset: the leader (broker 2) did not report its commit offset"),
        verdict.pending().stream().map(ReplicaDigestCheck.Shard::toString).toList());
  }

  @Test
  void theStreamsAndTheCachesVerdictsAddUp() throws Exception {
    ReplicaDigestCheck.Verdict stream = ReplicaDigestCheck.check(answer(
        shard(4, digested(0, "1a2b3c4d"), digested(1, "deadbeef"))));
    ReplicaDigestCheck.Verdict cache = ReplicaDigestCheck.check(JSON.readTree("{\"stream\":\"chaos-cache\","
        + "\"shards\":[" + shard(1, digested(0, "0000abcd"), digested(2, "0000abcd")) + "]}"));

    ReplicaDigestCheck.Verdict both = stream.plus(cache);
    assertEquals(1, both.diverged().size());
    assertEquals("chaos", both.diverged().get(0).stream());
    assertTrue(cache.plus(ReplicaDigestCheck.Verdict.AGREED).agreed());
  }
}
