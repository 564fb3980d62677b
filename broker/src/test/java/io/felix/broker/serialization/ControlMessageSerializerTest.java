package io.felix.broker.serialization;

import io.felix.broker.control.MoveState;

import io.felix.broker.control.PassTrigger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.ControlState;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.StreamList;
import io.felix.broker.control.JournalRecord;
import io.felix.broker.control.PlacementController;
import io.felix.broker.control.ProducerIdBlock;
import io.felix.broker.control.PlacementEvent;
import io.felix.broker.control.PlacementEvent.BrokerDraining;
import io.felix.broker.control.PlacementEvent.BrokerUndrained;
import io.felix.broker.control.PlacementEvent.BrokerJoined;
import io.felix.broker.control.PlacementEvent.BrokerRemoved;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.MoveAborted;
import io.felix.broker.control.PlacementEvent.MoveCompleted;
import io.felix.broker.control.PlacementEvent.MoveFenced;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.PlacementPaused;
import io.felix.broker.control.PlacementEvent.PlacementResumed;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import io.felix.broker.control.PlacementEvent.StreamDeleted;
import io.felix.broker.node.NodeConfig;
import io.felix.broker.security.AclEntry;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.security.SecurityEvent;
import io.felix.broker.security.SecurityHolder;
import io.felix.protocol.scram.ScramCredential;
import io.felix.broker.log.LogDigest;
import io.felix.broker.shard.ReplicaDigest;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRoleBoard;
import io.felix.broker.shard.NotServingReason;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ReplicaStatuses;
import io.felix.broker.wire.ControlMessage;
import java.io.NotSerializableException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.DisabledJavaSerializer;
import org.apache.pekko.serialization.Serialization;
import org.apache.pekko.serialization.SerializationExtension;
import org.apache.pekko.serialization.Serializer;
import org.apache.pekko.serialization.Serializers;
import org.apache.pekko.serialization.jackson.JacksonCborSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Every message that crosses Artery is bound to the protobuf {@link ControlMessageSerializer} and survives a round
 * trip unchanged; local-only messages have no serializer at all; the journal's records stay on Jackson CBOR. The
 * bindings are the broker's own (reference.conf and {@link NodeConfig}), so this tests them too.
 */
class ControlMessageSerializerTest {
  private static final ActorTestKit kit =
      ActorTestKit.create(NodeConfig.withOverrides(Map.of("felix.cluster.port", 0)));
  private static final Serialization serialization = SerializationExtension.get(Adapter.toClassic(kit.system()));

  private static final ShardId ORDERS_0 = new ShardId("orders", 0);
  private static final ShardId CLICKS_7 = new ShardId("clicks", 7);
  private static final BrokerEndpoint BROKER_1 = new BrokerEndpoint(1, "10.0.0.1", 7070, 7071, 8080);
  private static final BrokerEndpoint BROKER_2 = new BrokerEndpoint(2, "10.0.0.2", 7170, 7171, 8180);
  private static final BrokerEndpoint BROKER_3 = new BrokerEndpoint(3, "h3", 1, 2, 3, "h3.example", "localhost", 29093);

  private static final ScramCredential PENCIL =
      new ScramCredential("W22ZaJ0SNY7soEsUEjb6gQ==", 4096, "c3RvcmVk", "c2VydmVy");
  private static final AclEntry ALICE_PRODUCES = new AclEntry("alice", ResourceType.STREAM, "orders", Operation.PRODUCE);

  /** Every kind of event, so the state has draining brokers, moves in flight and both kinds of finished moves. */
  private static final List<PlacementEvent> EVENTS = List.of(
      new BrokerJoined(1, "zone-a", 0, BROKER_1),
      new BrokerJoined(2, "", 4, BROKER_2),
      new BrokerJoined(3, "zone-b", 0, BROKER_3),
      new StreamCreated("orders", 1, 3, java.util.UUID.fromString("0b5e7f0e-9a53-4d0e-8d0c-0f3c4f6f2a10")),
      new StreamCreated("clicks", 8, 1, null),
      new StreamCreated("gone", 1, 1, java.util.UUID.randomUUID()),
      new ShardPlaced(ORDERS_0, List.of(1, 2, 3), 1, 1),
      new ShardPlaced(CLICKS_7, List.of(3), 3, 1),
      new ShardPlaced(new ShardId("gone", 0), List.of(2), 2, 1),
      new StreamDeleted("gone"),
      new LeaderPromoted(ORDERS_0, 2, 2, 1),
      new MoveStarted(1, ORDERS_0, 2, 3, false, "manual", 1_000),
      new MoveFenced(ORDERS_0, 3),
      new MoveCompleted(ORDERS_0, List.of(1, 2, 3), 3, 3, 2_000),
      new MoveStarted(2, CLICKS_7, 3, 1, true, "drain", 3_000),
      new MoveAborted(CLICKS_7, 2, "move-timeout", 4_000),
      new MoveStarted(3, CLICKS_7, 3, 2, true, "balance", 5_000),
      new BrokerDraining(3),
      new BrokerUndrained(3),
      new BrokerJoined(4, "", 0, new BrokerEndpoint(4, "h4", 4, 5, 6)),
      new BrokerRemoved(4),
      new PlacementPaused(6_000),
      new PlacementResumed(7_000),
      new PlacementPaused(8_000),
      new PlacementEvent.TableVersionRaised(40),
      new StreamCreated("kept", 2, 1, java.util.UUID.fromString("5f1e4a8b-2c3d-4e5f-8a9b-0c1d2e3f4a5b"),
          new StreamConfig(3_600_000L, null, 1_048_576L)),
      new PlacementEvent.StreamConfigChanged("kept", new StreamConfig(3_600_000L, 10_000L, 1_048_576L)),
      new PlacementEvent.StreamShardsAdded("kept", 3),
      new PlacementEvent.ProducerIdsAllocated(2, 0, 1000),
      new PlacementEvent.ProducerIdsAllocated(1, 1000, 1000),
      new StreamCreated("sessions", 3, 3, java.util.UUID.fromString("6f1e4a8b-2c3d-4e5f-8a9b-0c1d2e3f4a5b"),
          new StreamConfig(-1L, -1L, null, new io.felix.broker.assignment.CacheConfig(60_000))),
      new PlacementEvent.SecurityChanged(new SecurityEvent.UserCredentialSet("alice", PENCIL)),
      new PlacementEvent.SecurityChanged(new SecurityEvent.UserCredentialSet("bob", PENCIL)),
      new PlacementEvent.SecurityChanged(new SecurityEvent.AclAdded(ALICE_PRODUCES)),
      new PlacementEvent.SecurityChanged(new SecurityEvent.AclAdded(
          new AclEntry("bob", ResourceType.CLUSTER, "ignored", Operation.ADMIN))),
      new PlacementEvent.SecurityChanged(new SecurityEvent.AclRemoved(
          new AclEntry("bob", ResourceType.CLUSTER, "cluster", Operation.ADMIN))),
      new PlacementEvent.SecurityChanged(new SecurityEvent.TokenIssued("alice", "aGFzaA==")),
      new PlacementEvent.SecurityChanged(new SecurityEvent.UserDeleted("bob")),
      new BrokerJoined(3, "zone-b", 0, BROKER_3, 30_000),
      new StreamCreated("big", 2, 2, java.util.UUID.fromString("7f1e4a8b-2c3d-4e5f-8a9b-0c1d2e3f4a5b"), null,
          List.of(new ShardPlaced(new ShardId("big", 0), List.of(1, 2), 1, 1),
              new ShardPlaced(new ShardId("big", 1), List.of(2, 3), 3, 1))),
      new PlacementEvent.StreamShardsAdded("big", 3),
      new PlacementEvent.ShardsPlaced(List.of(new ShardPlaced(new ShardId("big", 2), List.of(1, 3), 3, 1))),
      new PlacementEvent.FailoverDecided(List.of(),
          List.of(new LeaderPromoted(new ShardId("big", 0), 2, 2, 1), new LeaderPromoted(new ShardId("big", 2), 1, 2, 3))));

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void everyMessageCrossingArteryRoundTripsThroughTheProtobufSerializer() throws Exception {
    ActorRef<ReplicaStatus> statusTo = kit.<ReplicaStatus>createTestProbe().ref();
    ActorRef<ReplicaDigest> digestTo = kit.<ReplicaDigest>createTestProbe().ref();
    ActorRef<ControlReply> replyTo = kit.<ControlReply>createTestProbe().ref();
    ActorRef<ControlView> viewTo = kit.<ControlView>createTestProbe().ref();
    ActorRef<StreamList> streamsTo = kit.<StreamList>createTestProbe().ref();
    ActorRef<AssignmentTable> tableTo = kit.<AssignmentTable>createTestProbe().ref();
    ActorRef<ReplicaStatuses> statusesTo = kit.<ReplicaStatuses>createTestProbe().ref();
    ActorRef<AssignmentHolder.Command> holderTo = kit.<AssignmentHolder.Command>createTestProbe().ref();
    ActorRef<ProducerIdBlock> blockTo = kit.<ProducerIdBlock>createTestProbe().ref();
    ControlState state = state();
    assertEquals(2000, state.nextProducerId(), "the producer id high-water mark rides the state");
    AssignmentTable table = state.table();
    assertEquals(List.of(2), table.shards().get(CLICKS_7).learners(), "a staged move's learner rides the table");

    List<ControlMessage> messages = List.of(
        new ReplicaDirectory.ApplyAssignments(table),
        new ReplicaDirectory.FenceShard(ORDERS_0, 10, statusTo),
        new ReplicaDirectory.DescribeReplica(CLICKS_7, statusTo),
        new ReplicaDirectory.DigestReplica(ORDERS_0, 12_000, digestTo),
        ReplicaDigest.of(ORDERS_0, 3, new LogDigest(12_000, 0, 12_345, 12_000, 480, 0xF00DCAFEL)),
        new ReplicaStatus(ORDERS_0, 3, true, ReplicaRole.FOLLOWER, 9, 12_345, 12_000, false, true, 10),
        table,
        new AssignmentHolder.Publish(table),
        new AssignmentHolder.PublishChunk(table.version(), 1, 3, table),
        new AssignmentHolder.Advertise(BROKER_2),
        new AssignmentHolder.GetTable(tableTo),
        new PlacementController.RegisterBroker(2, "zone-a", 12, BROKER_2, 7_500),
        new PlacementController.CreateStream("orders", 12, 3, replyTo),
        new PlacementController.CreateStream("kept", 2, 1, new StreamConfig(-1L, 1L << 30, null), replyTo),
        new PlacementController.ChangeStream("kept", new StreamConfig(null, 5_000L, null), null, replyTo),
        new PlacementController.ChangeStream("kept", StreamConfig.DEFAULTS, 6, replyTo),
        new PlacementController.CreateStream("sessions", 3, 3,
            new StreamConfig(-1L, -1L, null, new io.felix.broker.assignment.CacheConfig(0)), replyTo),
        new ReplicaStatus(ORDERS_0, 3, true, ReplicaRole.LEADER, 9, 12_345, 12_000, false, false, 10, List.of(3),
            4_000),
        new PlacementController.DeleteStream("orders", replyTo),
        new PlacementController.DrainBroker(3, replyTo),
        new PlacementController.UndrainBroker(3, replyTo),
        new PlacementController.RemoveBroker(3, replyTo),
        new PlacementController.PausePlacement(replyTo),
        new PlacementController.ResumePlacement(replyTo),
        new PlacementController.StartMove("orders", 0, 2, replyTo),
        new PlacementController.GetView(viewTo),
        new PlacementController.GetStreams(streamsTo),
        new StreamList(List.copyOf(state.streams().values())),
        new StreamList(List.of()),
        new PlacementController.AllocateProducerIds(2, blockTo),
        new ProducerIdBlock(1000, 1000),
        new PlacementController.LeadersNotServing(1, List.of(
            new PlacementController.NotServing(ORDERS_0, 4, NotServingReason.EPOCH_HELD_BEFORE_RESTART),
            new PlacementController.NotServing(CLICKS_7, 2, NotServingReason.LOG_FAILED))),
        new PlacementController.TableWanted(2, 17, holderTo),
        new ReplicaDirectory.FenceShards(41, Map.of(ORDERS_0, 10L, CLICKS_7, 12L), 2_000, statusesTo),
        new ReplicaDirectory.DescribeReplicas(42, List.of(ORDERS_0, CLICKS_7), 1_500, statusesTo),
        new ReplicaRoleBoard.DescribeRoles(43, List.of(ORDERS_0, CLICKS_7), true, statusesTo),
        new ReplicaStatuses(42, 3, 17, List.of(ReplicaStatus.starting(ORDERS_0, 3),
            new ReplicaStatus(CLICKS_7, 3, true, ReplicaRole.FOLLOWER, 9, 12_345, 12_000, false, true, 10))),
        new AssignmentHolder.PublishDelta(table.version() - 1, table, List.of(new ShardId("gone", 0))),
        new AssignmentHolder.TableVersion(table.version()),
        new PlacementController.PeersSuspected(2, List.of(0, 1)),
        new PlacementController.ChangeSecurity(new SecurityEvent.UserCredentialSet("carol", PENCIL), replyTo),
        new PlacementController.ChangeSecurity(new SecurityEvent.UserDeleted("carol"), replyTo),
        new PlacementController.ChangeSecurity(new SecurityEvent.AclAdded(ALICE_PRODUCES), replyTo),
        new PlacementController.ChangeSecurity(new SecurityEvent.AclRemoved(ALICE_PRODUCES), replyTo),
        new PlacementController.ChangeSecurity(new SecurityEvent.TokenIssued("carol", "aGFzaA=="), replyTo),
        new SecurityHolder.Publish(state.security()),
        new ControlReply.Done("stream 'orders' created with 12 shards"),
        new ControlReply.Done("stream 'orders' created with 12 shards", 42),
        new ControlReply.Rejected(ControlReply.Refusal.INVALID, "shards: must be 1..10000, got 0"),
        new ControlReply.Rejected(ControlReply.Refusal.NOT_FOUND, "broker 9 is not known"),
        new ControlReply.Rejected(ControlReply.Refusal.CONFLICT, "stream 'orders' already exists"),
        new ControlView(state, List.of(1, 2), new ControlView.LastPass(9_000, PassTrigger.TIMER,
            List.of("MOVE clicks/7 3->2 (balance)"), List.of("orders/1")), "stream-aware", 1, 0, 3_000),
        new ControlView(ControlState.EMPTY, List.of(), ControlView.LastPass.NONE, "cluster-share", 2, 1, 500));

    for (ControlMessage message : messages) {
      assertEquals(message, roundTrip(message), message.getClass().getName());
    }
    Set<Class<?>> covered = messages.stream().map(Object::getClass).collect(Collectors.toSet());
    assertEquals(mapping().types(), covered, "every mapped message type is round-tripped here");
  }

  @Test
  void aReplicaStatusRoundTripsWithEveryRole() throws Exception {
    for (ReplicaRole role : ReplicaRole.values()) {
      ReplicaStatus status = new ReplicaStatus(CLICKS_7, 5, true, role, 3, 70, 60, role == ReplicaRole.FAILED,
          role == ReplicaRole.FOLLOWER, 4);
      assertEquals(status, roundTrip(status));
    }
    ReplicaStatus leader = new ReplicaStatus(CLICKS_7, 5, true, ReplicaRole.LEADER, 3, 70, 60, false, false, 4,
        List.of(2, 5));
    assertEquals(leader, roundTrip(leader)); // its in-sync set (fields 50-59)
    ReplicaStatus notHosted = ReplicaStatus.notHosted(CLICKS_7, 5);
    assertEquals(ReplicaRole.NONE, notHosted.role());
    assertEquals(notHosted, roundTrip(notHosted));
    assertEquals(List.of("leader", "follower", "learner", "fenced", "none", "failed", "starting"),
        Arrays.stream(ReplicaRole.values()).map(ReplicaRole::wireName).toList());
  }

  @Test
  void aReplicaDigestRoundTripsWithEveryOutcome() throws Exception {
    List<ReplicaDigest> digests = List.of(
        ReplicaDigest.of(CLICKS_7, 1, new LogDigest(500, 100, 700, 498, 31, 0xFFFFFFFFL)),
        ReplicaDigest.of(CLICKS_7, 2, new LogDigest(500, 100, 420, -1, 0, 0)),
        ReplicaDigest.without(CLICKS_7, 3, ReplicaDigest.Outcome.NOT_HOSTED, "broker 3 hosts no replica"),
        ReplicaDigest.without(CLICKS_7, 4, ReplicaDigest.Outcome.FAILED, "disk full"),
        ReplicaDigest.without(CLICKS_7, 5, ReplicaDigest.Outcome.UNREADABLE, "offset 0 is outside the log"));
    assertEquals(Set.of(ReplicaDigest.Outcome.values()),
        digests.stream().map(ReplicaDigest::outcome).collect(Collectors.toSet()));
    for (ReplicaDigest digest : digests) {
      assertEquals(digest, roundTrip(digest));
    }
  }

  @Test
  void aLeaderNotServingReportRoundTripsWithEveryReason() throws Exception {
    List<PlacementController.NotServing> reports = Arrays.stream(NotServingReason.values())
        .map(reason -> new PlacementController.NotServing(CLICKS_7, 9, reason)).toList();
    PlacementController.LeadersNotServing batch = new PlacementController.LeadersNotServing(2, reports);
    assertEquals(batch, roundTrip(batch));
  }

  @Test
  void everyPublicCommandCarriesTheMarkerAndIsMappedWhileLocalOnesCannotCrossArtery() throws Exception {
    Set<Class<?>> publicCommands = new HashSet<>();
    Set<Class<?>> localOnly = new HashSet<>();
    for (Class<?> protocol : List.of(PlacementController.Command.class, AssignmentHolder.Command.class,
        ReplicaDirectory.Command.class, ControlReply.class)) {
      for (Class<?> message : protocol.getPermittedSubclasses()) {
        (ControlMessage.class.isAssignableFrom(message) ? publicCommands : localOnly).add(message);
      }
    }
    Set<Class<?>> unmapped = new HashSet<>(publicCommands);
    unmapped.removeAll(mapping().types());
    assertEquals(Set.of(), unmapped);
    for (Class<?> mapped : mapping().types()) {
      assertTrue(ControlMessage.class.isAssignableFrom(mapped), mapped + " is mapped but has no marker");
    }
    assertEquals(Set.of("ReplicasAnswered", "ProgressNow", "PlacementTick", "MembershipChanged", "Listed", "ProgressTick",
            "RegisterTick", "ReplicaStopped", "ReplicaOpened", "Respawn", "StopReplicaUnretired", "TableHeld", "HeldTablesWaitOver",
            "PurgeQuarantine"),
        localOnly.stream().map(Class::getSimpleName).collect(Collectors.toSet()));
    for (Class<?> local : localOnly) {
      assertFalse(canCrossArtery(local), local.getName());
    }
  }

  @Test
  void theJournalsEventsAndSnapshotStayOnJacksonCbor() throws Exception {
    ControlState state = ControlState.EMPTY;
    for (PlacementEvent event : EVENTS) {
      assertEquals(event, roundTripOn(JacksonCborSerializer.class, event));
      state = state.apply(event);
    }
    assertEquals(state, roundTripOn(JacksonCborSerializer.class, state));
    assertEquals(Arrays.stream(PlacementEvent.class.getPermittedSubclasses()).collect(Collectors.toSet()),
        EVENTS.stream().map(Object::getClass).collect(Collectors.toSet()), "every kind of event is stored here");
    assertFalse(ControlMessage.class.isAssignableFrom(JournalRecord.class));
  }

  /** A stream created before streams had their own settings: the journal's event reads with the defaults. */
  record StreamCreatedBeforeSettings(String stream, int shards, int replicationFactor, java.util.UUID incarnation) {}

  @Test
  void aStreamCreatedEventWrittenBeforeStreamSettingsReadsWithTheDefaults() throws Exception {
    var mapper = org.apache.pekko.serialization.jackson.JacksonObjectMapperProvider.get(Adapter.toClassic(kit.system()))
        .getOrCreate("jackson-cbor", java.util.Optional.empty());
    java.util.UUID incarnation = java.util.UUID.randomUUID();
    byte[] old = mapper.writeValueAsBytes(new StreamCreatedBeforeSettings("old", 3, 2, incarnation));
    StreamCreated read = mapper.readValue(old, StreamCreated.class);
    assertEquals(new StreamCreated("old", 3, 2, incarnation, StreamConfig.DEFAULTS), read);
    assertEquals(StreamConfig.DEFAULTS, ControlState.EMPTY.apply(read).streams().get("old").config());
  }

  /**
   * An admin request on a broker that does not host the singleton gets the placement view over Artery in one frame
   * (2 MiB, io/felix/broker/node/pekko-overrides.conf): a stream of 20,000 shards at replication factor 3 (more than
   * three brokers with the local defaults' replica capacity can hold) still fits.
   */
  @Test
  void thePlacementViewOfTwentyThousandShardsFitsOneArteryFrame() throws Exception {
    int shards = 20_000;
    List<ShardPlaced> placed = new java.util.ArrayList<>();
    for (int i = 0; i < shards; i++) {
      placed.add(new ShardPlaced(new ShardId("big", i), List.of(i % 3 + 1, (i + 1) % 3 + 1, (i + 2) % 3 + 1),
          i % 3 + 1, 1));
    }
    ControlState state = state().apply(new StreamCreated("big", shards, 3, java.util.UUID.randomUUID(),
        StreamConfig.DEFAULTS, placed));
    ControlView view = new ControlView(state, List.of(1, 2, 3), ControlView.LastPass.NONE, "stream-aware", 2, 1, 500);
    byte[] bytes = serialization.serialize(view).get();
    assertTrue(bytes.length < 2 * 1024 * 1024, "the view of " + shards + " shards takes " + bytes.length + " bytes");
    assertEquals(view.state().streams().get("big"), ((ControlView) roundTrip(view)).state().streams().get("big"));
  }

  @Test
  void anUnknownManifestIsRefusedByName() throws Exception {
    Serializer serializer = serialization.serializerFor(ReplicaStatus.class);
    NotSerializableException e = assertThrows(NotSerializableException.class,
        () -> ((ControlMessageSerializer) serializer).fromBinary(new byte[0], "Z"));
    assertEquals("bad control message (manifest Z): unknown control message manifest 'Z'", e.getMessage());
  }

  private static ControlState state() {
    ControlState state = ControlState.EMPTY;
    for (PlacementEvent event : EVENTS) {
      state = state.apply(event);
    }
    assertEquals(3, state.brokers().size());
    assertEquals(1, state.moves().size());
    assertEquals(List.of(MoveState.COMPLETED, MoveState.ABORTED), state.recentMoves().stream().map(m -> m.state()).toList());
    return state;
  }

  /** No binding at all, or (enums are Serializable) Java serialization, which Felix switches off. */
  private static boolean canCrossArtery(Class<?> type) {
    try {
      return !(serialization.serializerFor(type) instanceof DisabledJavaSerializer);
    } catch (NotSerializableException unbound) {
      return false;
    }
  }

  private static Object roundTrip(Object message) throws Exception {
    return roundTripOn(ControlMessageSerializer.class, message);
  }

  /** Serializes and deserializes through the system's bindings, checking the serializer they chose. */
  private static Object roundTripOn(Class<? extends Serializer> expected, Object message) throws Exception {
    Serializer serializer = serialization.serializerFor(message.getClass());
    assertInstanceOf(expected, serializer, message.getClass().getName());
    byte[] bytes = serialization.serialize(message).get();
    return serialization.deserialize(bytes, serializer.identifier(), Serializers.manifestFor(serializer, message))
        .get();
  }

  private static ControlMessageMapping mapping() throws Exception {
    return ((ControlMessageSerializer) serialization.serializerFor(ReplicaStatus.class)).mapping();
  }
}
