package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class SharedStatusesTest {

  private static final Duration MAX_AGE = Duration.ofSeconds(1);
  private static final ShardId SHARD = new ShardId("orders", 0);

  /** The replicas' side: each ask is answered when the test says. */
  private final List<CompletableFuture<Map<ShardId, Map<Integer, ReplicaStatus>>>> asks = new ArrayList<>();
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final SharedStatuses shared = new SharedStatuses((table, shards) -> {
    CompletableFuture<Map<ShardId, Map<Integer, ReplicaStatus>>> ask = new CompletableFuture<>();
    asks.add(ask);
    return ask;
  }, MAX_AGE, nanos::get);

  @Test
  void requestsThatComeWhileAnAskRunsShareItsAnswer() {
    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> first = shared.of(table(1));
    nanos.addAndGet(Duration.ofSeconds(3).toNanos()); // a slow ask: still shared, however long it takes
    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> second = shared.of(table(1));
    assertEquals(1, asks.size(), "one ask for both requests");
    assertFalse(first.toCompletableFuture().isDone());

    asks.get(0).complete(leaderOn(2));
    assertEquals(leaderOn(2), first.toCompletableFuture().join());
    assertEquals(leaderOn(2), second.toCompletableFuture().join());
  }

  @Test
  void anAnswerServesTheRequestsOfTheNextMaxAgeThenServesOneMoreWhileTheReplicasAreAskedAgain() {
    shared.of(table(1));
    nanos.addAndGet(Duration.ofSeconds(5).toNanos());
    asks.get(0).complete(leaderOn(2)); // the age counts from the answer, not the ask

    nanos.addAndGet(MAX_AGE.toNanos() - 1);
    assertEquals(leaderOn(2), shared.of(table(1)).toCompletableFuture().join());
    assertEquals(1, asks.size(), "answered " + (MAX_AGE.toNanos() - 1) + " ns ago: no new ask");

    nanos.addAndGet(1);
    assertEquals(leaderOn(2), shared.of(table(1)).toCompletableFuture().join(), "max-age old: served at once");
    assertEquals(2, asks.size(), "and the replicas asked again for the requests after it");
    assertEquals(leaderOn(2), shared.of(table(1)).toCompletableFuture().join());
    assertEquals(2, asks.size(), "one new ask at a time");

    asks.get(1).complete(leaderOn(1));
    assertEquals(leaderOn(1), shared.of(table(1)).toCompletableFuture().join(), "the new answer serves from now on");
    assertEquals(2, asks.size());
  }

  @Test
  void anAnswerTwiceMaxAgeOldServesNothing() {
    shared.of(table(1));
    asks.get(0).complete(leaderOn(2));
    nanos.addAndGet(2 * MAX_AGE.toNanos());
    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> waiting = shared.of(table(1));
    assertFalse(waiting.toCompletableFuture().isDone(), "waits on a new ask");
    asks.get(1).complete(leaderOn(1));
    assertEquals(leaderOn(1), waiting.toCompletableFuture().join());
  }

  @Test
  void aNewTableVersionAsksAgainAtOnce() {
    shared.of(table(1));
    asks.get(0).complete(leaderOn(2));
    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> running = shared.of(table(2));
    assertEquals(2, asks.size(), "the table changed: its replicas may differ");
    assertSame(running, shared.of(table(2)), "the new ask is shared in turn");
    assertEquals(2, asks.size());
  }

  @Test
  void aFailedAskAnswersNoStatusAndServesNoLaterRequest() {
    shared.of(table(1));
    asks.get(0).complete(leaderOn(2));
    nanos.addAndGet(MAX_AGE.toNanos());
    shared.of(table(1)); // served the old answer, and started a new ask
    asks.get(1).completeExceptionally(new IllegalStateException("no directory answered"));

    CompletionStage<Map<ShardId, Map<Integer, ReplicaStatus>>> next = shared.of(table(1));
    assertEquals(3, asks.size(), "asked again at once, the old answer no longer served");
    asks.get(2).completeExceptionally(new IllegalStateException("no directory answered"));
    assertEquals(Map.of(), next.toCompletableFuture().join(), "a failed ask answers no status");
  }

  private static AssignmentTable table(long version) {
    return new AssignmentTable(version, Map.of(), Map.of("orders", 1), new TreeMap<>());
  }

  private static Map<ShardId, Map<Integer, ReplicaStatus>> leaderOn(int broker) {
    return Map.of(SHARD, Map.of(broker,
        new ReplicaStatus(SHARD, broker, true, ReplicaRole.LEADER, 1, 10, 10, false, false, 1)));
  }
}
