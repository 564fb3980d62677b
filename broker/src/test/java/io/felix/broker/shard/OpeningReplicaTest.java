package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.ReplicaMetadata;
import io.felix.broker.log.ReplicaState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A replica's first behaviour (broker 1): the log opens on the blocking-IO dispatcher, the directory is told, and
 * the messages that came meanwhile are handled in their order by the role the replica then takes.
 */
class OpeningReplicaTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("OpeningReplicaTest");
  static final int SELF = 1;

  TestProbe<ReplicaDirectory.Command> directory;

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, SELF);
    directory = kit.createTestProbe();
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment leading(long epoch) {
    return new ShardAssignment(SHARD, List.of(SELF, 2, 3), List.of(), SELF, epoch);
  }

  @Test
  void handlesWhatCameWhileItsLogOpenedInOrderOnceOpen() throws Exception {
    Path logDir = tmp.resolve("new-replica");
    replica.startOpening(leading(1), logDir, directory.getRef());
    TestProbe<ReplicaStatus> fenced = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(3, fenced.getRef()));
    ReplicaStatus described = replica.describe();

    assertEquals(new ReplicaDirectory.ReplicaOpened(SHARD, false), directory.receiveMessage());
    assertEquals(3, fenced.receiveMessage().promisedEpoch());
    assertEquals(3, described.promisedEpoch(), "the fence, sent first, was handled first");
    assertTrue(described.recovering(), "a new replica vouches for nothing until it caught up with a leader");
    assertEquals(Optional.of(new ReplicaState(ShardAssignment.legacyIncarnation(SHARD.stream()), 3, true)),
        new ReplicaMetadata(logDir).read(), "the fence is stored before it is answered");
  }

  @Test
  void aLogThatCannotOpenMakesItFailedAndTheDirectoryIsToldSo() throws Exception {
    Path notADirectory = Files.writeString(tmp.resolve("a-file"), "not a log directory");
    replica.startOpening(leading(1), notADirectory, directory.getRef());
    ReplicaStatus status = replica.describe();

    assertEquals(new ReplicaDirectory.ReplicaOpened(SHARD, true), directory.receiveMessage());
    assertEquals(ReplicaRole.FAILED, status.role());
    assertTrue(status.failed());
  }
}
