package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.TestBrokers;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica actor that stops without being retired (a failure) is started again by its directory while the held
 * table still has the broker host the shard: re-pushes of that same table are ignored, so nothing else would.
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class ReplicaRespawnTest {
  private static final ShardId SHARD = new ShardId("respawn", 0);

  @TempDir
  Path dir;

  @Test
  void aFollowerReplicaThatStoppedUnretiredIsStartedAgainAndCatchesUpWithTheLeader() throws Exception {
    try (TestBrokers brokers = new TestBrokers(dir, 2, "")) {
      brokers.apply(brokers.table(Map.of(SHARD.stream(), 1),
          List.of(new ShardAssignment(SHARD, List.of(0, 1), List.of(), 0, 1))));
      TestBrokers.await("both brokers host " + SHARD, Duration.ofSeconds(20),
          () -> brokers.describe(0, SHARD).hosted() && brokers.describe(1, SHARD).hosted());
      try (FelixClient client = new FelixClient(ClientSettings.builder(brokers.clientAddress(0)).build())) {
        produce(client, "before-", 3);
        TestBrokers.await("broker 1 replicated 3 records", Duration.ofSeconds(20),
            () -> brokers.describe(1, SHARD).logEndOffset() == 3);

        // First the stop itself: the replica actor that served the shard terminates.
        ActorRef stopped = replicaActor(brokers, 1).orElseThrow();
        TestProbe<Object> watcher = TestProbe.create(brokers.system(1));
        brokers.plane(1).directory().tell(new ReplicaDirectory.StopReplicaUnretired(SHARD));
        watcher.expectTerminated(Adapter.toTyped(stopped), Duration.ofSeconds(20));

        // Then the respawn: a new replica actor (another incarnation) serves the shard with its log.
        TestBrokers.await("a new replica actor on broker 1 serves " + SHARD, Duration.ofSeconds(20), () -> {
          Optional<ActorRef> now = replicaActor(brokers, 1);
          if (now.isEmpty() || now.get().equals(stopped)) {
            return false;
          }
          ReplicaStatus s = brokers.describe(1, SHARD);
          return s.hosted() && s.role() == ReplicaRole.FOLLOWER && s.logEndOffset() == 3;
        });
        watcher.stop();

        // It replicates again: records produced now reach it, and the leader serves them all.
        produce(client, "after-", 2);
        TestBrokers.await("broker 1 replicated 5 records", Duration.ofSeconds(20),
            () -> brokers.describe(1, SHARD).logEndOffset() == 5);
        FetchResult read = client.fetch(SHARD.stream(), 0, 0, 1024 * 1024, 500).get(30, TimeUnit.SECONDS);
        assertEquals(List.of("before-0", "before-1", "before-2", "after-0", "after-1"), read.records().stream()
            .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList());
      }
    }
  }

  /**
   * The actor of broker {@code id}'s replica of SHARD, if one runs: the directory's child
   * {@code replica-<shard>-<incarnation>}, a new name for each start.
   */
  private static Optional<ActorRef> replicaActor(TestBrokers brokers, int id) {
    String path = brokers.plane(id).directory().path().toStringWithoutAddress() + "/replica-"
        + ReplicaDirectory.directoryName(SHARD) + "-*";
    try {
      return Optional.of(Adapter.toClassic(brokers.system(id)).actorSelection(path)
          .resolveOne(Duration.ofSeconds(5)).toCompletableFuture().get(10, TimeUnit.SECONDS));
    } catch (ExecutionException notRunning) {
      return Optional.empty();
    } catch (InterruptedException | TimeoutException e) {
      throw new AssertionError("could not look up the replica actor on broker " + id, e);
    }
  }

  private static void produce(FelixClient client, String prefix, int count) throws Exception {
    for (int i = 0; i < count; i++) {
      client.produce(SHARD.stream(), 0, null, (prefix + i).getBytes(StandardCharsets.UTF_8), List.of())
          .get(30, TimeUnit.SECONDS);
    }
  }
}
