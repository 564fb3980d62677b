package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A follower (broker 1, leader 2) whose {@code replica.state} changes: each change is written and fsynced off the
 * actor's thread while messages wait ({@link StoringReplica}), answered only once stored, and what came meanwhile is
 * handled afterwards in its order; a change that cannot be stored is never acted on.
 */
class StoringReplicaTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("StoringReplicaTest");
  static final int SELF = 1;
  static final ReplicaState FRESH = new ReplicaState(ShardAssignment.legacyIncarnation(SHARD.stream()), -1, false);

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, SELF);
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment following(long epoch) {
    return new ShardAssignment(SHARD, List.of(2, SELF, 3), List.of(), 2, epoch);
  }

  @Test
  void eachChangeIsStoredBeforeItIsAnsweredAndWhatCameMeanwhileIsHandledInOrder() throws Exception {
    replica.startFollower(following(1)); // promises epoch 1 as it starts: stored off the actor's thread
    TestProbe<ReplicaStatus> first = kit.createTestProbe();
    TestProbe<ReplicaStatus> second = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(3, first.getRef()));
    replica.tell(new ShardReplica.Fence(5, second.getRef()));
    ReplicaStatus described = replica.describe();

    assertEquals(3, first.receiveMessage().promisedEpoch(), "answered with its own fence, not the later one");
    assertEquals(5, second.receiveMessage().promisedEpoch());
    assertEquals(5, described.promisedEpoch());
    assertEquals(ReplicaRole.FENCED, described.role(), "fenced above the epoch it followed");
    assertEquals(Optional.of(new ReplicaState(FRESH.incarnation(), 5, false)),
        new ReplicaMetadata(replica.log.directory()).read());
  }

  @Test
  void aPromiseThatCannotBeStoredIsNeverAnsweredAndStopsTheReplica() throws Exception {
    ActorRef<ShardReplica.Command> actor = replica.startFollower(following(1));
    assertEquals(1, replica.describe().promisedEpoch());
    // The write goes in place into replica.state: a directory there (with a file in it) makes every write fail.
    Path state = replica.log.directory().resolve(ReplicaMetadata.FILE);
    Path aside = state.resolveSibling("state-aside");
    Files.move(state, aside);
    Path inTheWay = state.resolve("in-the-way");
    Files.createDirectories(inTheWay);
    TestProbe<ReplicaStatus> fenced = kit.createTestProbe();
    TestProbe<Object> watcher = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(4, fenced.getRef()));

    watcher.expectTerminated(actor, ReplicaFixture.PATIENCE);
    fenced.expectNoMessage(Duration.ofMillis(200));
    Files.delete(inTheWay);
    Files.delete(state);
    Files.move(aside, state);
    assertEquals(Optional.of(new ReplicaState(FRESH.incarnation(), 1, false)),
        new ReplicaMetadata(replica.log.directory()).read(), "the stored promise is still the one it acted on");
  }
}
