package io.felix.broker.shard;

import static io.felix.broker.shard.ReplicaFixture.SHARD;
import static io.felix.broker.shard.ReplicaFixture.append;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.CorruptLogException;
import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.FetchError;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The failed role (broker 2): it serves nothing and answers FAILED, retries opening its log once per reopen interval
 * of its (manual) clock, and once the log opens takes its role from the newest assignment, never leading at an
 * epoch it was assigned to lead while failed.
 */
class FailedReplicaTest extends ReplicaActorTest {
  static final ActorTestKit kit = ReplicaFixture.testKit("FailedReplicaTest");
  static final int LEADER = 1;
  static final int SELF = 2;
  static final Duration REOPEN = LogSettings.defaults().reopenInterval();

  Path brokenDir;
  /** Where a byte of the first batch was flipped: flipping it back repairs the log. */
  long damagedAt;

  @BeforeEach
  void open() throws Exception {
    replica = new ReplicaFixture(kit, tmp, SELF);
    brokenDir = tmp.resolve("broken");
    try (FlushScheduler flusher = FlushScheduler.start(LogSettings.defaults(), "broken-flusher")) {
      ShardLog log = ShardLog.open(brokenDir, LogSettings.defaults(), flusher);
      append(log, 1, 2); // [0, 6) at epoch 1
      log.close(); // a clean close: every record is below the recovery point, so damage there is corruption
    }
    damagedAt = 30;
    flipByte();
    assertThrows(CorruptLogException.class, () -> ShardLog.open(brokenDir, LogSettings.defaults(), null));
  }

  @AfterAll
  static void stopKit() {
    kit.shutdownTestKit();
  }

  static ShardAssignment assignment(int leader, long epoch) {
    return new ShardAssignment(SHARD, List.of(LEADER, SELF, 3), List.of(), leader, epoch);
  }

  @Test
  void servesNothingAndRetriesOnlyOncePerReopenInterval() throws Exception {
    replica.startFailed(assignment(LEADER, 1), brokenDir, "corrupt");
    ReplicaStatus status = replica.describe();
    assertEquals(ReplicaRole.FAILED, status.role());
    assertTrue(status.failed());
    Response produced = replica.produce(Acks.QUORUM, 1).get(5, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_LEADER, produced.getError().getCode());
    assertTrue(produced.getError().getNotAppended());
    replica.followerFetch(ReplicaFixture.fetch(3, 1, 0, -1, 0));
    assertEquals(FetchError.FETCH_REPLICA_FAILED, replica.sessions.nextFetchResult(3).getError());

    flipByte(); // the cause is gone, but no attempt is due yet
    replica.clock.advance(REOPEN.minusMillis(1));
    replica.tell(ShardReplica.Tick.WORK);
    assertEquals(ReplicaRole.FAILED, replica.describe().role());
    assertEquals(List.of(), replica.sessions.drain());

    replica.clock.advance(Duration.ofMillis(1));
    replica.tell(ShardReplica.Tick.WORK);
    ReplicaStatus reopened = replica.describe();
    assertEquals(ReplicaRole.FOLLOWER, reopened.role());
    assertEquals(6, reopened.logEndOffset());
    assertEquals(6, replica.sessions.nextFetch(LEADER).getFetchOffset());
  }

  @Test
  void aFailedAttemptWaitsAnotherWholeInterval() throws Exception {
    replica.startFailed(assignment(LEADER, 1), brokenDir, "corrupt");
    replica.clock.advance(REOPEN);
    replica.tell(ShardReplica.Tick.WORK); // attempt 1: still corrupt
    assertEquals(ReplicaRole.FAILED, replica.describe().role());

    flipByte();
    replica.clock.advance(REOPEN.minusMillis(1));
    replica.tell(ShardReplica.Tick.WORK);
    assertEquals(ReplicaRole.FAILED, replica.describe().role());
    replica.clock.advance(Duration.ofMillis(1));
    replica.tell(ShardReplica.Tick.WORK); // attempt 2
    assertEquals(ReplicaRole.FOLLOWER, replica.describe().role());
  }

  @Test
  void aReplicaAssignedToLeadWhileFailedWaitsForANewerEpoch() throws Exception {
    replica.startFailed(assignment(SELF, 3), brokenDir, "corrupt");
    flipByte();
    replica.clock.advance(REOPEN);
    replica.tell(ShardReplica.Tick.WORK);
    assertEquals(ReplicaRole.FENCED, replica.describe().role()); // not LEADER at epoch 3
    Response refused = replica.produce(Acks.QUORUM, 1).get(5, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_LEADER, refused.getError().getCode());

    replica.tell(new ShardReplica.Assign(assignment(LEADER, 4))); // the failover's new epoch
    assertEquals(ReplicaRole.FOLLOWER, replica.describe().role());
    assertEquals(4, replica.sessions.nextFetch(LEADER).getLeaderEpoch());
  }

  @Test
  void aFailedReplicaAssignedToLeadReportsItOncePerIntervalUntilAnotherLeads() throws Exception {
    Queue<String> reports = new ConcurrentLinkedQueue<>();
    replica.registry.reportNotServingTo((shard, broker, epoch, reason) ->
        reports.add(shard + " " + broker + " " + epoch + " " + reason), Duration.ofSeconds(1));
    replica.startFailed(assignment(SELF, 3), brokenDir, "corrupt");
    replica.tell(ShardReplica.Tick.WORK);
    replica.describe(); // the tick was handled before the describe
    assertEquals(List.of(SHARD + " 2 3 LOG_FAILED"), List.copyOf(reports));

    replica.clock.advance(Duration.ofMillis(999));
    replica.tell(ShardReplica.Tick.WORK);
    replica.describe();
    assertEquals(1, reports.size(), "no second report within the interval");
    replica.clock.advance(Duration.ofMillis(1));
    replica.tell(ShardReplica.Tick.WORK);
    replica.describe();
    assertEquals(2, reports.size(), "reported again once the interval passed");

    replica.tell(new ShardReplica.Assign(assignment(LEADER, 4))); // failed over: another broker leads
    replica.clock.advance(Duration.ofSeconds(1));
    replica.tell(ShardReplica.Tick.WORK);
    replica.describe();
    assertEquals(2, reports.size(), "no report once it is not the assigned leader");
  }

  @Test
  void aFenceAdoptedWhileFailedHoldsAfterTheReopen() throws Exception {
    replica.startFailed(assignment(LEADER, 1), brokenDir, "corrupt");
    TestProbe<ReplicaStatus> probe = kit.createTestProbe();
    replica.tell(new ShardReplica.Fence(2, probe.getRef()));
    assertEquals(ReplicaRole.FAILED, probe.receiveMessage().role());
    flipByte();
    replica.clock.advance(REOPEN);
    replica.tell(ShardReplica.Tick.WORK);
    assertEquals(ReplicaRole.FENCED, replica.describe().role()); // epoch 1 is below the fence
    assertEquals(List.of(), replica.sessions.drain());
  }

  @Test
  void aLeaderWhoseLogFailsAtRunTimeBecomesFailedAndTakesNoMoreAppends() throws Exception {
    replica.startLeader(assignment(SELF, 1));
    replica.tell(new ShardReplica.LogFailed(replica.log, "an fsync failed: No space left on device"));
    assertEquals(ReplicaRole.FAILED, replica.describe().role());
    Response refused = replica.produce(Acks.QUORUM, 1).get(5, TimeUnit.SECONDS);
    assertEquals(ErrorCode.NOT_LEADER, refused.getError().getCode());
    assertTrue(refused.getError().getMessage().contains("No space left on device"), refused.getError().getMessage());

    // Room again: the log reopens, but the replica does not lead again at epoch 1.
    replica.clock.advance(REOPEN);
    replica.tell(ShardReplica.Tick.WORK);
    assertEquals(ReplicaRole.FENCED, replica.describe().role());
  }

  @Test
  void aFailureOfALogTheReplicaNoLongerUsesIsIgnored() throws Exception {
    ShardLog other = replica.openOtherLog(tmp.resolve("other"));
    replica.startFollower(assignment(LEADER, 1));
    replica.sessions.nextFetch(LEADER);
    replica.tell(new ShardReplica.LogFailed(other, "not this replica's log"));
    assertEquals(ReplicaRole.FOLLOWER, replica.describe().role());
  }

  private void flipByte() throws Exception {
    try (RandomAccessFile f = new RandomAccessFile(brokenDir.resolve("00000000000000000000.log").toFile(), "rw")) {
      f.seek(damagedAt);
      int b = f.read();
      f.seek(damagedAt);
      f.write(b ^ 0x40);
    }
  }
}
