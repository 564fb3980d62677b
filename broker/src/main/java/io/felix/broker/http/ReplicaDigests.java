package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.shard.ReplicaDigest;
import io.felix.broker.shard.ReplicaDirectory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * GET /v1/streams/{name}/replica-digests: whether the replicas of each shard hold the same log below the commit
 * offset. For each shard it asks the leader for its commit offset C ({@link AdminRoutes.CommitOffsets}), then every
 * replica of the replica set for the digest of its log below C ({@link ReplicaDirectory.DigestReplica}, whatever its
 * role), and compares them. Learners (a move's destination still copying) are not asked.
 */
final class ReplicaDigests {
  /**
   * How long one replica's digest is waited for: it reads the replica's whole log below C (about a second per GB
   * from the page cache, several from disk). A replica that takes longer shows as not answering.
   */
  static final Duration DIGEST_TIMEOUT = Duration.ofSeconds(15);

  private final ActorSystem<?> system;
  private final AdminRoutes.CommitOffsets commitOffsets;
  private final Duration lookupTimeout;

  ReplicaDigests(ActorSystem<?> system, AdminRoutes.CommitOffsets commitOffsets, Duration lookupTimeout) {
    this.system = system;
    this.commitOffsets = commitOffsets;
    this.lookupTimeout = lookupTimeout;
  }

  /** One replica's answer: its digest, or why there is none ({@code digest} null: it did not answer). */
  record ReplicaAnswer(int broker, ReplicaDigest digest, String unanswered) {}

  /**
   * One shard's replicas compared below its leader's commit offset.
   *
   * @param commitOffset the leader's commit offset, null when the leader did not answer (then no replica was asked)
   * @param replicas one answer per replica of the replica set, in its order
   */
  record ShardDigests(int shard, int leader, Long commitOffset, List<ReplicaAnswer> replicas) {

    /**
     * Whether every replica digested its log below the commit offset and all digests agree: the same log start,
     * the same offset digested to, the same number of batches and the same CRC.
     */
    boolean equal() {
      if (commitOffset == null || replicas.isEmpty()) {
        return false;
      }
      ReplicaDigest first = replicas.get(0).digest();
      for (ReplicaAnswer answer : replicas) {
        ReplicaDigest d = answer.digest();
        if (d == null || d.outcome() != ReplicaDigest.Outcome.DIGESTED || !sameLog(first, d)) {
          return false;
        }
      }
      return true;
    }

    private static boolean sameLog(ReplicaDigest a, ReplicaDigest b) {
      return a.digest().logStartOffset() == b.digest().logStartOffset()
          && a.digest().digestedTo() == b.digest().digestedTo() && a.digest().batches() == b.digest().batches()
          && a.digest().crc32c() == b.digest().crc32c();
    }
  }

  /** Every shard of {@code stream} in {@code table}, in shard order; never fails (a failed ask is an answer). */
  CompletionStage<List<ShardDigests>> of(AssignmentTable table, String stream) {
    CompletionStage<Map<Integer, Long>> offsets = commitOffsets.of(table, stream).exceptionally(failure -> Map.of());
    CompletionStage<Map<Integer, ActorRef<ReplicaDirectory.Command>>> directories =
        BrokerDirectories.find(system, lookupTimeout).exceptionally(failure -> Map.of());
    return offsets.thenCombine(directories, (found, byBroker) -> {
      List<CompletableFuture<ShardDigests>> shards = new ArrayList<>();
      for (ShardAssignment a : table.shards().values()) {
        if (a.id().stream().equals(stream)) {
          shards.add(shard(a, found.get(a.id().shard()), byBroker));
        }
      }
      return CompletableFuture.allOf(shards.toArray(CompletableFuture[]::new))
          .thenApply(done -> shards.stream().map(CompletableFuture::join).toList());
    }).thenCompose(all -> all);
  }

  private CompletableFuture<ShardDigests> shard(ShardAssignment a, Long commitOffset,
      Map<Integer, ActorRef<ReplicaDirectory.Command>> directories) {
    if (commitOffset == null) {
      return CompletableFuture.completedFuture(new ShardDigests(a.id().shard(), a.leader(), null, List.of()));
    }
    List<CompletableFuture<ReplicaAnswer>> answers = new ArrayList<>();
    for (int broker : a.replicas()) {
      ActorRef<ReplicaDirectory.Command> directory = directories.get(broker);
      if (directory == null) {
        answers.add(CompletableFuture.completedFuture(
            new ReplicaAnswer(broker, null, "broker " + broker + " is not reachable in the cluster")));
        continue;
      }
      CompletionStage<ReplicaDigest> digest = AskPattern.ask(directory,
          replyTo -> new ReplicaDirectory.DigestReplica(a.id(), commitOffset, replyTo), DIGEST_TIMEOUT,
          system.scheduler());
      answers.add(digest.toCompletableFuture()
          .thenApply(d -> new ReplicaAnswer(broker, d, null))
          .exceptionally(failure -> new ReplicaAnswer(broker, null,
              "no answer within " + DIGEST_TIMEOUT.toSeconds() + " s")));
    }
    return CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new))
        .thenApply(done -> new ShardDigests(a.id().shard(), a.leader(), commitOffset,
            answers.stream().map(CompletableFuture::join).toList()));
  }
}
