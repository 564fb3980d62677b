package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.append;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.LogDigest;
import java.util.List;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every role answers a digest of its log (DigestReplica): a follower and a leader with their log's digest below the
 * offset asked, or short with their log's bounds; a failed replica that it has failed.
 */
class ReplicaDigestAnswerTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("ReplicaDigestAnswerTest");
  static final int SELF = 2;

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, SELF);
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  private static ShardAssignment ledBy(int leader, long epoch) {
    return new ShardAssignment(SHARD, List.of(1, SELF, 3), List.of(), leader, epoch);
  }

  private ReplicaDigest digest(long below) {
    TestProbe<ReplicaDigest> probe = kit.createTestProbe();
    replica.tell(new ShardReplica.Digest(below, probe.getRef()));
    return probe.receiveMessage();
  }

  @Test
  void aFollowerAnswersItsLogsDigestBelowTheOffsetOrThatItIsShort() {
    append(replica.log, 1, 4); // [0, 12) at epoch 1
    replica.startFollower(ledBy(1, 1));

    ReplicaDigest below9 = digest(9);
    assertEquals(ReplicaDigest.of(SHARD, SELF, LogDigest.of(replica.log, 9, LogDigest.Scope.WHOLE_BATCHES)), below9);
    assertEquals(ReplicaDigest.Outcome.DIGESTED, below9.outcome());
    assertEquals(3, below9.digest().batches());

    ReplicaDigest beyond = digest(13);
    assertEquals(ReplicaDigest.Outcome.SHORT, beyond.outcome());
    assertEquals(12, beyond.digest().logEndOffset());
  }

  @Test
  void aLeaderAnswersWithTheSameDigestAsAFollowerHoldingTheSameBatches() {
    append(replica.log, 1, 4); // [0, 12) at epoch 1, then its own epoch marker at 12
    replica.startLeader(ledBy(SELF, 2));
    assertEquals(13, replica.describe().logEndOffset());

    ReplicaDigest below12 = digest(12);
    assertEquals(ReplicaDigest.Outcome.DIGESTED, below12.outcome());
    assertEquals(new LogDigest(12, 0, 13, 12, 4, below12.digest().crc32c()), below12.digest());
    assertEquals(LogDigest.of(replica.log, 12, LogDigest.Scope.WHOLE_BATCHES), below12.digest());
  }

  @Test
  void aFailedReplicaAnswersThatItFailed() {
    replica.startFailed(ledBy(1, 1), tmp.resolve("unopened"), "disk full");

    ReplicaDigest failed = digest(5);
    assertEquals(ReplicaDigest.Outcome.FAILED, failed.outcome());
    assertNull(failed.digest());
    assertTrue(failed.problem().contains("disk full"), failed.problem());
  }
}
