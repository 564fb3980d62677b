package io.felix.loadgen.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Whether the followers of every shard hold the leader's log below the commit offset, judged from a stream's
 * {@code GET /v1/streams/{name}/replica-digests}. The digests are compared here rather than taking the broker's
 * {@code equal}: this is the check of that code, so it reads the evidence itself. Pure: JSON in, a verdict out.
 *
 * <p>A shard is pending while its leader's commit offset is unknown or some replica has no digest below it (its
 * log ends below, or it did not answer); once every replica digested, the shard agrees when all of them digested
 * the same log start, up to the same offset, the same number of batches with the same CRC, and has diverged
 * otherwise.
 */
final class ReplicaDigestCheck {

  private ReplicaDigestCheck() {}

  /** A shard that diverged or is pending, and what each replica said. */
  record Shard(String stream, int shard, String detail) {
    @Override
    public String toString() {
      return stream + "/" + shard + " " + detail;
    }
  }

  /** The shards that diverged and the shards still pending (none of either: every replica agrees). */
  record Verdict(List<Shard> diverged, List<Shard> pending) {
    static final Verdict AGREED = new Verdict(List.of(), List.of());

    Verdict {
      diverged = List.copyOf(diverged);
      pending = List.copyOf(pending);
    }

    /** Every replica of every shard digested (equal or not): waiting longer would not change the verdict. */
    boolean settled() {
      return pending.isEmpty();
    }

    boolean agreed() {
      return diverged.isEmpty() && pending.isEmpty();
    }

    Verdict plus(Verdict other) {
      return new Verdict(Stream.concat(diverged.stream(), other.diverged.stream()).toList(),
          Stream.concat(pending.stream(), other.pending.stream()).toList());
    }

    /** What is wrong, naming each shard, its replicas' brokers and digests; null when every replica agrees. */
    String problem() {
      if (agreed()) {
        return null;
      }
      List<String> parts = new ArrayList<>();
      if (!diverged.isEmpty()) {
        parts.add(diverged.size() + " shard(s) diverged: " + join(diverged));
      }
      if (!pending.isEmpty()) {
        parts.add(pending.size() + " shard(s) without a digest on every replica: " + join(pending));
      }
      return String.join("; ", parts);
    }

    private static String join(List<Shard> shards) {
      return shards.stream().map(Shard::toString).collect(Collectors.joining("; "));
    }
  }

  /** The verdict on one stream's answer. */
  static Verdict check(JsonNode answer) {
    String stream = answer.path("stream").asText();
    List<Shard> diverged = new ArrayList<>();
    List<Shard> pending = new ArrayList<>();
    for (JsonNode shard : answer.path("shards")) {
      int number = shard.path("shard").asInt();
      JsonNode commit = shard.path("commit_offset");
      if (!commit.isIntegralNumber()) {
        pending.add(new Shard(stream, number, "has no commit offset: " + shard.path("error").asText("")));
        continue;
      }
      String below = "below commit offset " + commit.asLong() + " (leader " + shard.path("leader").asInt() + "): ";
      List<String> replicas = new ArrayList<>();
      Set<String> logs = new HashSet<>();
      boolean allDigested = shard.path("replicas").size() > 0;
      for (JsonNode replica : shard.path("replicas")) {
        allDigested &= replica.has("digest");
        logs.add(digestedLog(replica));
        replicas.add(describe(replica));
      }
      String detail = below + String.join(", ", replicas);
      if (!allDigested) {
        pending.add(new Shard(stream, number, detail));
      } else if (logs.size() > 1) {
        diverged.add(new Shard(stream, number, detail));
      }
    }
    return new Verdict(diverged, pending);
  }

  /** What a replica digested: equal for two replicas exactly when they hold the same log below the offset. */
  private static String digestedLog(JsonNode replica) {
    return replica.path("log_start").asLong() + ".." + replica.path("digested_to").asLong() + " in "
        + replica.path("batches").asLong() + " batches, digest " + replica.path("digest").asText();
  }

  private static String describe(JsonNode replica) {
    String broker = "broker " + replica.path("broker").asInt() + " ";
    if (replica.has("digest")) {
      return broker + digestedLog(replica);
    }
    if (replica.path("short").asBoolean()) {
      return broker + "short (log " + replica.path("log_start").asLong() + ".." + replica.path("log_end").asLong()
          + ")";
    }
    return broker + "error: " + replica.path("error").asText("no digest");
  }
}
