package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import org.junit.jupiter.api.Test;

/** Leaders are ordered per shard by leader epoch (KIP-320), not by the answering broker's table version. */
class ClusterViewTest {
  private static final HostPort B1 = new HostPort("127.0.0.1", 9001);
  private static final HostPort B2 = new HostPort("127.0.0.1", 9002);

  /** An answer from a table of {@code version}: stream s, one shard led by {@code leader} at {@code epoch}. */
  private static MetadataResponse answer(long version, int leader, long epoch) {
    return answer(version, leader, epoch, "incarnation-1");
  }

  private static MetadataResponse answer(long version, int leader, long epoch, String incarnation) {
    return MetadataResponse.newBuilder()
        .addBrokers(BrokerAddress.newBuilder().setId(1).setHost(B1.host()).setPort(B1.port()))
        .addBrokers(BrokerAddress.newBuilder().setId(2).setHost(B2.host()).setPort(B2.port()))
        .addStreams(StreamMetadata.newBuilder().setName("s").setIncarnation(incarnation)
            .addShards(ShardMetadata.newBuilder().setShard(0).setLeader(leader).setLeaderEpoch(epoch)))
        .setAssignmentVersion(version)
        .build();
  }

  @Test
  void anOlderEpochIsIgnoredEvenFromANewerTable() {
    ClusterView view = ClusterView.EMPTY.merge(answer(3, 1, 5));
    view = view.merge(answer(4, 2, 4));
    assertEquals(new ClusterView.Leader(1, 5), view.leader("s", 0));
    assertEquals(B1, view.leaderAddress("s", 0));
    assertEquals(4, view.assignmentVersion());
  }

  @Test
  void aNewerEpochIsTakenFromALowerTableVersionAndNeverUndone() {
    ClusterView view = ClusterView.EMPTY.merge(answer(7, 1, 2));
    view = view.merge(answer(5, 2, 3));
    assertEquals(new ClusterView.Leader(2, 3), view.leader("s", 0));
    assertEquals(7, view.assignmentVersion(), "the table version only grows");
    // The broker of table 7 answers again: its epoch 2 is older, so the leader stays.
    view = view.merge(answer(7, 1, 2));
    assertEquals(new ClusterView.Leader(2, 3), view.leader("s", 0));
    assertEquals(B2, view.leaderAddress("s", 0));
  }

  @Test
  void theSameEpochFromAnOlderTableChangesNothing() {
    ClusterView view = ClusterView.EMPTY.merge(answer(7, 1, 2));
    assertEquals(new ClusterView.Leader(1, 2), view.merge(answer(6, -1, 2)).leader("s", 0));
    assertEquals(new ClusterView.Leader(-1, 2), view.merge(answer(7, -1, 2)).leader("s", 0));
  }

  @Test
  void aStreamThatWasDeletedStartsOverWithItsEpochs() {
    ClusterView view = ClusterView.EMPTY.merge(answer(3, 1, 5));
    ClusterView deleted = view.merge(MetadataResponse.newBuilder().setAssignmentVersion(4)
        .addStreams(StreamMetadata.newBuilder().setName("s").setError(ErrorCode.UNKNOWN_STREAM)).build());
    assertEquals(ClusterView.Leader.UNKNOWN, deleted.leader("s", 0));
    assertEquals(new ClusterView.Leader(2, 1), deleted.merge(answer(5, 2, 1)).leader("s", 0), "created again");
  }

  @Test
  void aStreamCreatedAgainWithTheSameShardsIsKnownByItsIncarnation() {
    ClusterView view = ClusterView.EMPTY.merge(answer(3, 1, 5, "incarnation-1"));
    // Deleted and created again between two reads of this client: the same shards, epochs starting over.
    assertEquals(new ClusterView.Leader(2, 1), view.merge(answer(9, 2, 1, "incarnation-2")).leader("s", 0));
    assertEquals(new ClusterView.Leader(1, 5), view.merge(answer(9, 2, 1, "incarnation-1")).leader("s", 0),
        "the same incarnation keeps its newer epoch");
    assertEquals(new ClusterView.Leader(1, 5), view.merge(answer(2, 2, 1, "incarnation-2")).leader("s", 0),
        "an older table says nothing about incarnations");
  }

  @Test
  void aHintIsAppliedFromItsEpochOnAndAnOlderOneIsIgnored() {
    ClusterView view = ClusterView.EMPTY.merge(answer(3, 1, 5));
    assertSame(view, view.withLeader("s", 0, 2, 4, B2), "epoch 4 is older than the 5 held");
    assertSame(view, view.withLeader("s", 0, 2, -1, B2), "a hint without an epoch orders before any epoch");
    assertEquals(new ClusterView.Leader(2, 5), view.withLeader("s", 0, 2, 5, B2).leader("s", 0));
    ClusterView moved = view.withLeader("s", 0, 2, 6, new HostPort("127.0.0.1", 9100));
    assertEquals(new ClusterView.Leader(2, 6), moved.leader("s", 0));
    assertEquals(new HostPort("127.0.0.1", 9100), moved.leaderAddress("s", 0));
    // A metadata answer from a newer table that still names the old leader does not undo the hint.
    assertEquals(new ClusterView.Leader(2, 6), moved.merge(answer(9, 1, 5)).leader("s", 0));
  }
}
