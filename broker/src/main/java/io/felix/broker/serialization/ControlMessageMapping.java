package io.felix.broker.serialization;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.AssignmentHolder;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.ControlState;
import io.felix.broker.control.ControlState.BrokerRecord;
import io.felix.broker.control.ControlState.MoveRecord;
import io.felix.broker.control.ControlState.StreamRecord;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.ProducerIdBlock;
import io.felix.broker.control.PlacementController;
import io.felix.broker.control.StreamList;
import io.felix.broker.security.SecurityHolder;
import io.felix.broker.log.LogDigest;
import io.felix.broker.shard.ReplicaDigest;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.protocol.control.ChangeSecurityMsg;
import io.felix.protocol.control.SecurityStateMsg;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ShardRefs;
import io.felix.broker.wire.ControlMessage;
import io.felix.protocol.control.AdvertiseMsg;
import io.felix.protocol.control.ApplyAssignmentsMsg;
import io.felix.protocol.control.AssignmentTableMsg;
import io.felix.protocol.control.BrokerEndpointMsg;
import io.felix.protocol.control.BrokerRecordMsg;
import io.felix.protocol.control.ControlStateMsg;
import io.felix.protocol.control.AllocateProducerIdsMsg;
import io.felix.protocol.control.ControlViewMsg;
import io.felix.protocol.control.ChangeStreamMsg;
import io.felix.protocol.control.ProducerIdBlockMsg;
import io.felix.protocol.control.CreateStreamMsg;
import io.felix.protocol.control.DeleteStreamMsg;
import io.felix.protocol.control.DescribeReplicaMsg;
import io.felix.protocol.control.DigestReplicaMsg;
import io.felix.protocol.control.ReplicaDigestMsg;
import io.felix.protocol.control.ReplicaDigestOutcomeMsg;
import io.felix.protocol.control.DoneMsg;
import io.felix.protocol.control.DrainBrokerMsg;
import io.felix.protocol.control.UndrainBrokerMsg;
import io.felix.protocol.control.FenceShardMsg;
import io.felix.protocol.control.GetTableMsg;
import io.felix.protocol.control.GetStreamsMsg;
import io.felix.protocol.control.GetViewMsg;
import io.felix.protocol.control.LastPassMsg;
import io.felix.protocol.control.LeaderNotServingMsg;
import io.felix.protocol.control.LeadersNotServingMsg;
import io.felix.protocol.control.FenceShardsMsg;
import io.felix.protocol.control.ShardEpochMsg;
import io.felix.protocol.control.DescribeReplicasMsg;
import io.felix.protocol.control.DescribeRolesMsg;
import io.felix.protocol.control.ReplicaStatusesMsg;
import io.felix.protocol.control.PublishDeltaMsg;
import io.felix.protocol.control.TableVersionMsg;
import io.felix.protocol.control.TableWantedMsg;
import io.felix.broker.shard.ReplicaRoleBoard;
import io.felix.broker.shard.ReplicaStatuses;
import io.felix.protocol.control.PeersSuspectedMsg;
import io.felix.protocol.control.NotServingReasonMsg;
import io.felix.broker.shard.NotServingReason;
import io.felix.protocol.control.MoveRecordMsg;
import io.felix.protocol.control.PausePlacementMsg;
import io.felix.protocol.control.PublishChunkMsg;
import io.felix.protocol.control.PublishMsg;
import io.felix.protocol.control.RefusalMsg;
import io.felix.protocol.control.RegisterBrokerMsg;
import io.felix.protocol.control.RejectedMsg;
import io.felix.protocol.control.RemoveBrokerMsg;
import io.felix.protocol.control.ReplicaRoleMsg;
import io.felix.protocol.control.MoveStateMsg;
import io.felix.protocol.control.PassTriggerMsg;
import io.felix.broker.control.MoveState;
import io.felix.broker.control.PassTrigger;
import io.felix.protocol.control.ReplicaStatusMsg;
import io.felix.protocol.control.ResumePlacementMsg;
import io.felix.protocol.control.ShardAssignmentMsg;
import io.felix.protocol.control.StartMoveMsg;
import io.felix.protocol.control.StreamConfigMsg;
import io.felix.protocol.control.StreamListMsg;
import io.felix.protocol.control.StreamRecordMsg;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;

/**
 * The one mapping between the Java messages that cross Artery ({@link ControlMessage}) and their protobuf
 * messages in felix_control.proto: each message type is bound once, below, to its manifest, its way to protobuf
 * and its way back. Actor references travel as strings through the {@link ActorRefResolver}.
 */
final class ControlMessageMapping {

  /** One message type: {@code manifest} names it on the wire (short: one rides along with every message). */
  private record Binding<T, M extends Message>(
      String manifest, Class<T> type, Function<T, M> toProto, Parser<M> parser, Function<M, T> fromProto) {

    byte[] toBinary(Object message) {
      return toProto.apply(type.cast(message)).toByteArray();
    }

    T fromBinary(byte[] bytes) throws InvalidProtocolBufferException {
      return fromProto.apply(parser.parseFrom(bytes));
    }
  }

  private final ActorRefResolver refs;
  private final Map<Class<?>, Binding<?, ?>> byType;
  private final Map<String, Binding<?, ?>> byManifest;

  ControlMessageMapping(ActorRefResolver refs) {
    this.refs = refs;
    List<Binding<?, ?>> bindings = List.of(
        // The data plane directory's messages keep the manifests they had before the control plane joined.
        bind("A", ReplicaDirectory.ApplyAssignments.class,
            m -> ApplyAssignmentsMsg.newBuilder().setTable(table(m.table())).build(),
            ApplyAssignmentsMsg.parser(), p -> new ReplicaDirectory.ApplyAssignments(table(p.getTable()))),
        bind("F", ReplicaDirectory.FenceShard.class,
            m -> FenceShardMsg.newBuilder().setShard(ShardRefs.toRef(m.id())).setNewEpoch(m.newEpoch())
                .setReplyTo(ref(m.replyTo())).build(),
            FenceShardMsg.parser(),
            p -> new ReplicaDirectory.FenceShard(ShardRefs.toId(p.getShard()), p.getNewEpoch(), ref(p.getReplyTo()))),
        bind("D", ReplicaDirectory.DescribeReplica.class,
            m -> DescribeReplicaMsg.newBuilder().setShard(ShardRefs.toRef(m.id())).setReplyTo(ref(m.replyTo())).build(),
            DescribeReplicaMsg.parser(),
            p -> new ReplicaDirectory.DescribeReplica(ShardRefs.toId(p.getShard()), ref(p.getReplyTo()))),
        bind("S", ReplicaStatus.class, ControlMessageMapping::status, ReplicaStatusMsg.parser(),
            ControlMessageMapping::status),
        bind("FSB", ReplicaDirectory.FenceShards.class,
            m -> FenceShardsMsg.newBuilder().setRequestId(m.requestId()).setTimeoutMillis(m.timeoutMillis())
                .addAllShards(m.epochs().entrySet().stream().map(e -> ShardEpochMsg.newBuilder()
                    .setShard(ShardRefs.toRef(e.getKey())).setEpoch(e.getValue()).build()).toList())
                .setReplyTo(ref(m.replyTo())).build(),
            FenceShardsMsg.parser(),
            p -> new ReplicaDirectory.FenceShards(p.getRequestId(), p.getShardsList().stream().collect(
                Collectors.toMap(e -> ShardRefs.toId(e.getShard()), ShardEpochMsg::getEpoch, Math::max)),
                p.getTimeoutMillis(), ref(p.getReplyTo()))),
        bind("DRB", ReplicaDirectory.DescribeReplicas.class,
            m -> DescribeReplicasMsg.newBuilder().setRequestId(m.requestId()).setTimeoutMillis(m.timeoutMillis())
                .addAllShards(m.shards().stream().map(ShardRefs::toRef).toList()).setReplyTo(ref(m.replyTo())).build(),
            DescribeReplicasMsg.parser(),
            p -> new ReplicaDirectory.DescribeReplicas(p.getRequestId(),
                p.getShardsList().stream().map(ShardRefs::toId).toList(), p.getTimeoutMillis(), ref(p.getReplyTo()))),
        bind("DRO", ReplicaRoleBoard.DescribeRoles.class,
            m -> DescribeRolesMsg.newBuilder().setRequestId(m.requestId())
                .addAllShards(m.shards().stream().map(ShardRefs::toRef).toList()).setOnlyNotLeading(m.onlyNotLeading())
                .setReplyTo(ref(m.replyTo())).build(),
            DescribeRolesMsg.parser(),
            p -> new ReplicaRoleBoard.DescribeRoles(p.getRequestId(),
                p.getShardsList().stream().map(ShardRefs::toId).toList(), p.getOnlyNotLeading(),
                ref(p.getReplyTo()))),
        bind("RSS", ReplicaStatuses.class,
            m -> ReplicaStatusesMsg.newBuilder().setRequestId(m.requestId()).setBrokerId(m.brokerId())
                .setTableVersion(m.tableVersion()).addAllStatuses(m.statuses().stream().map(ControlMessageMapping::status).toList()).build(),
            ReplicaStatusesMsg.parser(),
            p -> new ReplicaStatuses(p.getRequestId(), p.getBrokerId(), p.getTableVersion(),
                p.getStatusesList().stream().map(ControlMessageMapping::status).toList())),
        bind("DG", ReplicaDirectory.DigestReplica.class,
            m -> DigestReplicaMsg.newBuilder().setShard(ShardRefs.toRef(m.id())).setBelow(m.below())
                .setReplyTo(ref(m.replyTo())).build(),
            DigestReplicaMsg.parser(),
            p -> new ReplicaDirectory.DigestReplica(ShardRefs.toId(p.getShard()), p.getBelow(), ref(p.getReplyTo()))),
        bind("DR", ReplicaDigest.class, ControlMessageMapping::digest, ReplicaDigestMsg.parser(),
            ControlMessageMapping::digest),

        bind("T", AssignmentTable.class, ControlMessageMapping::table, AssignmentTableMsg.parser(),
            ControlMessageMapping::table),
        bind("P", AssignmentHolder.Publish.class, m -> PublishMsg.newBuilder().setTable(table(m.table())).build(),
            PublishMsg.parser(), p -> new AssignmentHolder.Publish(table(p.getTable()))),
        bind("PC", AssignmentHolder.PublishChunk.class,
            m -> PublishChunkMsg.newBuilder().setVersion(m.version()).setIndex(m.index()).setCount(m.count())
                .setPart(table(m.part())).build(),
            PublishChunkMsg.parser(),
            p -> new AssignmentHolder.PublishChunk(p.getVersion(), p.getIndex(), p.getCount(), table(p.getPart()))),
        bind("AD", AssignmentHolder.Advertise.class,
            m -> AdvertiseMsg.newBuilder().setEndpoint(endpoint(m.endpoint())).build(),
            AdvertiseMsg.parser(), p -> new AssignmentHolder.Advertise(endpoint(p.getEndpoint()))),
        bind("PD", AssignmentHolder.PublishDelta.class,
            m -> PublishDeltaMsg.newBuilder().setBaseVersion(m.baseVersion()).setChanges(table(m.changes()))
                .addAllRemoved(m.removed().stream().map(ShardRefs::toRef).toList()).build(),
            PublishDeltaMsg.parser(),
            p -> new AssignmentHolder.PublishDelta(p.getBaseVersion(), table(p.getChanges()),
                p.getRemovedList().stream().map(ShardRefs::toId).toList())),
        bind("TV", AssignmentHolder.TableVersion.class,
            m -> TableVersionMsg.newBuilder().setVersion(m.version()).build(),
            TableVersionMsg.parser(), p -> new AssignmentHolder.TableVersion(p.getVersion())),
        bind("GT", AssignmentHolder.GetTable.class, m -> GetTableMsg.newBuilder().setReplyTo(ref(m.replyTo())).build(),
            GetTableMsg.parser(), p -> new AssignmentHolder.GetTable(ref(p.getReplyTo()))),

        bind("RB", PlacementController.RegisterBroker.class,
            m -> RegisterBrokerMsg.newBuilder().setBrokerId(m.brokerId()).setZone(m.zone()).setMaxShards(m.maxShards())
                .setEndpoint(endpoint(m.endpoint())).setReplicaCapacity(m.replicaCapacity()).build(),
            RegisterBrokerMsg.parser(),
            p -> new PlacementController.RegisterBroker(p.getBrokerId(), p.getZone(), p.getMaxShards(),
                endpoint(p.getEndpoint()), p.getReplicaCapacity())),
        bind("CS", PlacementController.CreateStream.class,
            m -> CreateStreamMsg.newBuilder().setName(m.name()).setShards(m.shards())
                .setReplicationFactor(m.replicationFactor()).setReplyTo(ref(m.replyTo()))
                .setConfig(streamConfig(m.config())).build(),
            CreateStreamMsg.parser(),
            p -> new PlacementController.CreateStream(p.getName(), p.getShards(), p.getReplicationFactor(),
                streamConfig(p.getConfig()), ref(p.getReplyTo()))),
        bind("DS", PlacementController.DeleteStream.class,
            m -> DeleteStreamMsg.newBuilder().setName(m.name()).setReplyTo(ref(m.replyTo())).build(),
            DeleteStreamMsg.parser(), p -> new PlacementController.DeleteStream(p.getName(), ref(p.getReplyTo()))),
        bind("DB", PlacementController.DrainBroker.class,
            m -> DrainBrokerMsg.newBuilder().setBrokerId(m.brokerId()).setReplyTo(ref(m.replyTo())).build(),
            DrainBrokerMsg.parser(), p -> new PlacementController.DrainBroker(p.getBrokerId(), ref(p.getReplyTo()))),
        bind("UB", PlacementController.UndrainBroker.class,
            m -> UndrainBrokerMsg.newBuilder().setBrokerId(m.brokerId()).setReplyTo(ref(m.replyTo())).build(),
            UndrainBrokerMsg.parser(), p -> new PlacementController.UndrainBroker(p.getBrokerId(), ref(p.getReplyTo()))),
        bind("RM", PlacementController.RemoveBroker.class,
            m -> RemoveBrokerMsg.newBuilder().setBrokerId(m.brokerId()).setReplyTo(ref(m.replyTo())).build(),
            RemoveBrokerMsg.parser(), p -> new PlacementController.RemoveBroker(p.getBrokerId(), ref(p.getReplyTo()))),
        bind("PP", PlacementController.PausePlacement.class,
            m -> PausePlacementMsg.newBuilder().setReplyTo(ref(m.replyTo())).build(),
            PausePlacementMsg.parser(), p -> new PlacementController.PausePlacement(ref(p.getReplyTo()))),
        bind("RP", PlacementController.ResumePlacement.class,
            m -> ResumePlacementMsg.newBuilder().setReplyTo(ref(m.replyTo())).build(),
            ResumePlacementMsg.parser(), p -> new PlacementController.ResumePlacement(ref(p.getReplyTo()))),
        bind("SM", PlacementController.StartMove.class,
            m -> StartMoveMsg.newBuilder().setStream(m.stream()).setShard(m.shard()).setTo(m.to())
                .setReplyTo(ref(m.replyTo())).build(),
            StartMoveMsg.parser(),
            p -> new PlacementController.StartMove(p.getStream(), p.getShard(), p.getTo(), ref(p.getReplyTo()))),
        bind("GV", PlacementController.GetView.class, m -> GetViewMsg.newBuilder().setReplyTo(ref(m.replyTo())).build(),
            GetViewMsg.parser(), p -> new PlacementController.GetView(ref(p.getReplyTo()))),
        bind("LNS", PlacementController.LeadersNotServing.class,
            m -> LeadersNotServingMsg.newBuilder().setBrokerId(m.brokerId())
                .addAllReports(m.reports().stream().map(r -> LeaderNotServingMsg.newBuilder()
                    .setShard(ShardRefs.toRef(r.shard())).setBrokerId(m.brokerId()).setLeaderEpoch(r.epoch())
                    .setReason(toWire(r.reason(), NotServingReasonMsg.class, "NOT_SERVING_REASON_")).build()).toList())
                .build(),
            LeadersNotServingMsg.parser(),
            p -> new PlacementController.LeadersNotServing(p.getBrokerId(), p.getReportsList().stream()
                .map(r -> new PlacementController.NotServing(ShardRefs.toId(r.getShard()), r.getLeaderEpoch(),
                    fromWire(r.getReason(), NotServingReason.class, "NOT_SERVING_REASON_"))).toList())),
        bind("TW", PlacementController.TableWanted.class,
            m -> TableWantedMsg.newBuilder().setBrokerId(m.brokerId()).setHeldVersion(m.heldVersion())
                .setHolder(ref(m.holder())).build(),
            TableWantedMsg.parser(),
            p -> new PlacementController.TableWanted(p.getBrokerId(), p.getHeldVersion(), ref(p.getHolder()))),
        bind("PS", PlacementController.PeersSuspected.class,
            m -> PeersSuspectedMsg.newBuilder().setBrokerId(m.brokerId()).addAllSuspected(m.suspected()).build(),
            PeersSuspectedMsg.parser(),
            p -> new PlacementController.PeersSuspected(p.getBrokerId(), List.copyOf(p.getSuspectedList()))),

        bind("CH", PlacementController.ChangeStream.class, this::changeStream, ChangeStreamMsg.parser(),
            p -> new PlacementController.ChangeStream(p.getName(), streamConfig(p.getChange()),
                p.hasShards() ? p.getShards() : null, ref(p.getReplyTo()))),

        bind("OK", ControlReply.Done.class,
            m -> DoneMsg.newBuilder().setMessage(m.message()).setTableVersion(m.tableVersion()).build(),
            DoneMsg.parser(), p -> new ControlReply.Done(p.getMessage(), p.getTableVersion())),
        bind("NO", ControlReply.Rejected.class,
            m -> RejectedMsg.newBuilder().setRefusal(toWire(m.refusal(), RefusalMsg.class, "REFUSAL_")).setError(m.error()).build(),
            RejectedMsg.parser(), p -> new ControlReply.Rejected(fromWire(p.getRefusal(), ControlReply.Refusal.class, "REFUSAL_"), p.getError())),
        bind("V", ControlView.class, ControlMessageMapping::view, ControlViewMsg.parser(),
            ControlMessageMapping::view),
        bind("GS", PlacementController.GetStreams.class,
            m -> GetStreamsMsg.newBuilder().setReplyTo(ref(m.replyTo())).build(),
            GetStreamsMsg.parser(), p -> new PlacementController.GetStreams(ref(p.getReplyTo()))),
        bind("SL", StreamList.class, m -> StreamListMsg.newBuilder()
                .addAllStreams(m.streams().stream().map(ControlMessageMapping::streamRecord).toList()).build(),
            StreamListMsg.parser(),
            p -> new StreamList(p.getStreamsList().stream().map(ControlMessageMapping::streamRecord).toList())),
        bind("AP", PlacementController.AllocateProducerIds.class,
            m -> AllocateProducerIdsMsg.newBuilder().setBrokerId(m.brokerId()).setReplyTo(ref(m.replyTo())).build(),
            AllocateProducerIdsMsg.parser(),
            p -> new PlacementController.AllocateProducerIds(p.getBrokerId(), ref(p.getReplyTo()))),
        bind("PB", ProducerIdBlock.class,
            m -> ProducerIdBlockMsg.newBuilder().setFirstId(m.firstId()).setCount(m.count()).build(),
            ProducerIdBlockMsg.parser(), p -> new ProducerIdBlock(p.getFirstId(), p.getCount())),
        bind("ZC", PlacementController.ChangeSecurity.class, m -> ChangeSecurityMsg.newBuilder()
                .setChange(SecurityMessages.change(m.change())).setReplyTo(ref(m.replyTo())).build(),
            ChangeSecurityMsg.parser(),
            p -> new PlacementController.ChangeSecurity(SecurityMessages.change(p.getChange()), ref(p.getReplyTo()))),
        bind("ZP", SecurityHolder.Publish.class, m -> SecurityMessages.state(m.state()), SecurityStateMsg.parser(),
            p -> new SecurityHolder.Publish(SecurityMessages.state(p))));
    // toMap refuses a second binding of a type or a manifest.
    this.byType = bindings.stream().collect(Collectors.toUnmodifiableMap(Binding::type, b -> b));
    this.byManifest = bindings.stream().collect(Collectors.toUnmodifiableMap(Binding::manifest, b -> b));
  }

  private static <T, M extends Message> Binding<T, M> bind(String manifest, Class<T> type, Function<T, M> toProto,
      Parser<M> parser, Function<M, T> fromProto) {
    return new Binding<>(manifest, type, toProto, parser, fromProto);
  }

  /** Every Java type this mapping serializes (each must carry the {@link ControlMessage} marker). */
  Set<Class<?>> types() {
    return byType.keySet();
  }

  String manifest(Object message) {
    return binding(message).manifest();
  }

  byte[] toBinary(Object message) {
    return binding(message).toBinary(message);
  }

  /** @throws IllegalArgumentException for an unknown manifest or a message the Java records refuse */
  Object fromBinary(byte[] bytes, String manifest) throws InvalidProtocolBufferException {
    Binding<?, ?> binding = byManifest.get(manifest);
    if (binding == null) {
      throw new IllegalArgumentException("unknown control message manifest '" + manifest + "'");
    }
    return binding.fromBinary(bytes);
  }

  private Binding<?, ?> binding(Object message) {
    Binding<?, ?> binding = byType.get(message.getClass());
    if (binding == null) {
      throw new IllegalArgumentException("no protobuf mapping for " + message.getClass().getName());
    }
    return binding;
  }

  private String ref(ActorRef<?> ref) {
    return refs.toSerializationFormat(ref);
  }

  private <T> ActorRef<T> ref(String serialized) {
    return refs.resolveActorRef(serialized);
  }

  // ---- Shared vocabulary ----

  private static BrokerEndpointMsg endpoint(BrokerEndpoint e) {
    return BrokerEndpointMsg.newBuilder().setId(e.id()).setHost(e.host()).setClientPort(e.clientPort())
        .setReplicationPort(e.replicationPort()).setAdminPort(e.adminPort()).setClientHost(e.clientHost())
        .setExternalClientHost(e.externalClientHost()).setExternalClientPort(e.externalClientPort()).build();
  }

  private static BrokerEndpoint endpoint(BrokerEndpointMsg e) {
    // A broker that predates client_host sends none: its clients use host.
    return new BrokerEndpoint(e.getId(), e.getHost(), e.getClientPort(), e.getReplicationPort(), e.getAdminPort(),
        e.getClientHost().isEmpty() ? e.getHost() : e.getClientHost(), e.getExternalClientHost(),
        e.getExternalClientPort());
  }

  private static ShardAssignmentMsg assignment(ShardAssignment a) {
    return ShardAssignmentMsg.newBuilder().setShard(ShardRefs.toRef(a.id())).addAllReplicas(a.replicas())
        .addAllLearners(a.learners()).setLeader(a.leader()).setLeaderEpoch(a.leaderEpoch())
        .setIncarnation(a.incarnation().toString()).build();
  }

  private static ShardAssignment assignment(ShardAssignmentMsg a) {
    return new ShardAssignment(ShardRefs.toId(a.getShard()), a.getReplicasList(), a.getLearnersList(), a.getLeader(),
        a.getLeaderEpoch(), incarnation(a.getIncarnation()));
  }

  /** Empty in messages written before incarnations: null, which the records read as the legacy incarnation. */
  private static UUID incarnation(String text) {
    return text.isEmpty() ? null : UUID.fromString(text);
  }

  private static AssignmentTableMsg table(AssignmentTable table) {
    AssignmentTableMsg.Builder b = AssignmentTableMsg.newBuilder().setVersion(table.version())
        .putAllStreams(table.streams());
    table.brokers().values().stream().sorted(Comparator.comparingInt(BrokerEndpoint::id))
        .forEach(e -> b.addBrokers(endpoint(e)));
    table.shards().values().forEach(a -> b.addShards(assignment(a)));
    table.streamConfigs().forEach((stream, config) -> b.putStreamConfigs(stream, streamConfig(config)));
    return b.build();
  }

  private static AssignmentTable table(AssignmentTableMsg m) {
    Map<Integer, BrokerEndpoint> brokers = new HashMap<>();
    m.getBrokersList().forEach(e -> brokers.put(e.getId(), endpoint(e)));
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    m.getShardsList().forEach(s -> {
      ShardAssignment a = assignment(s);
      shards.put(a.id(), a);
    });
    Map<String, StreamConfig> configs = new HashMap<>();
    m.getStreamConfigsMap().forEach((stream, config) -> configs.put(stream, streamConfig(config)));
    return new AssignmentTable(m.getVersion(), brokers, m.getStreamsMap(), shards, configs);
  }

  private ChangeStreamMsg changeStream(PlacementController.ChangeStream m) {
    ChangeStreamMsg.Builder b = ChangeStreamMsg.newBuilder().setName(m.name()).setChange(streamConfig(m.change()))
        .setReplyTo(ref(m.replyTo()));
    if (m.shards() != null) {
      b.setShards(m.shards());
    }
    return b.build();
  }

  private static StreamConfigMsg streamConfig(StreamConfig c) {
    StreamConfigMsg.Builder b = StreamConfigMsg.newBuilder();
    if (c.retentionMs() != null) {
      b.setRetentionMs(c.retentionMs());
    }
    if (c.retentionBytes() != null) {
      b.setRetentionBytes(c.retentionBytes());
    }
    if (c.segmentBytes() != null) {
      b.setSegmentBytes(c.segmentBytes());
    }
    if (c.cache() != null) {
      b.setCacheDefaultTtlMs(c.cache().defaultTtlMs());
    }
    return b.build();
  }

  private static StreamConfig streamConfig(StreamConfigMsg m) {
    return new StreamConfig(m.hasRetentionMs() ? m.getRetentionMs() : null,
        m.hasRetentionBytes() ? m.getRetentionBytes() : null, m.hasSegmentBytes() ? m.getSegmentBytes() : null,
        m.hasCacheDefaultTtlMs() ? new CacheConfig(m.getCacheDefaultTtlMs()) : null);
  }

  // ---- Data plane directory ----

  private static ReplicaStatusMsg status(ReplicaStatus s) {
    return ReplicaStatusMsg.newBuilder().setShard(ShardRefs.toRef(s.id())).setBrokerId(s.brokerId())
        .setHosted(s.hosted()).setRole(toWire(s.role(), ReplicaRoleMsg.class, "REPLICA_ROLE_")).setLastEpoch(s.lastEpoch()).setLogEndOffset(s.logEndOffset())
        .setCommitOffset(s.commitOffset()).setFailed(s.failed())
        .setRecovering(s.recovering()).setPromisedEpoch(s.promisedEpoch()).addAllInSync(s.inSync())
        .setLogStartOffset(s.logStartOffset()).build();
  }

  private static ReplicaStatus status(ReplicaStatusMsg m) {
    return new ReplicaStatus(ShardRefs.toId(m.getShard()), m.getBrokerId(), m.getHosted(),
        fromWire(m.getRole(), ReplicaRole.class, "REPLICA_ROLE_"),
        m.getLastEpoch(), m.getLogEndOffset(), m.getCommitOffset(), m.getFailed(),
        m.getRecovering(), m.getPromisedEpoch(), m.getInSyncList(), m.getLogStartOffset());
  }

  private static ReplicaDigestMsg digest(ReplicaDigest d) {
    ReplicaDigestMsg.Builder b = ReplicaDigestMsg.newBuilder().setShard(ShardRefs.toRef(d.id()))
        .setBrokerId(d.brokerId()).setOutcome(toWire(d.outcome(), ReplicaDigestOutcomeMsg.class,
            "REPLICA_DIGEST_OUTCOME_")).setProblem(d.problem());
    LogDigest log = d.digest();
    if (log != null) {
      b.setBelow(log.below()).setLogStartOffset(log.logStartOffset()).setLogEndOffset(log.logEndOffset())
          .setDigestedTo(log.digestedTo()).setBatches(log.batches()).setCrc32C((int) log.crc32c());
    }
    return b.build();
  }

  private static ReplicaDigest digest(ReplicaDigestMsg m) {
    ReplicaDigest.Outcome outcome = fromWire(m.getOutcome(), ReplicaDigest.Outcome.class, "REPLICA_DIGEST_OUTCOME_");
    boolean hasDigest = outcome == ReplicaDigest.Outcome.DIGESTED || outcome == ReplicaDigest.Outcome.SHORT;
    LogDigest log = hasDigest ? new LogDigest(m.getBelow(), m.getLogStartOffset(), m.getLogEndOffset(),
        m.getDigestedTo(), m.getBatches(), Integer.toUnsignedLong(m.getCrc32C())) : null;
    return new ReplicaDigest(ShardRefs.toId(m.getShard()), m.getBrokerId(), outcome, log, m.getProblem());
  }

  /**
   * A Java enum's protobuf twin, whose constants are the Java names with {@code prefix}: protobuf enum values share
   * one namespace per file, hence the prefix.
   */
  private static <W extends Enum<W>> W toWire(Enum<?> value, Class<W> wireType, String prefix) {
    return Enum.valueOf(wireType, prefix + value.name());
  }

  private static <E extends Enum<E>> E fromWire(Enum<?> wire, Class<E> type, String prefix) {
    String name = wire.name();
    if (!name.startsWith(prefix) || name.endsWith("_UNSPECIFIED")) {
      throw new IllegalArgumentException("unknown " + type.getSimpleName() + " " + name);
    }
    return Enum.valueOf(type, name.substring(prefix.length()));
  }

  // ---- Placement singleton answers ----

  private static ControlViewMsg view(ControlView v) {
    ControlView.LastPass pass = v.lastPass();
    return ControlViewMsg.newBuilder().setState(state(v.state())).addAllAvailable(v.available())
        .setLastPass(LastPassMsg.newBuilder().setAtMillis(pass.atMillis())
            .setTrigger(toWire(pass.trigger(), PassTriggerMsg.class, "PASS_TRIGGER_"))
            .addAllPlanned(pass.planned()).addAllLeaderless(pass.leaderless()))
        .setStrategy(v.strategy()).setMaxConcurrentMoves(v.maxConcurrentMoves())
        .setMaxMovesPerBroker(v.maxMovesPerBroker()).setPlacementIntervalMillis(v.placementIntervalMillis()).build();
  }

  private static ControlView view(ControlViewMsg m) {
    LastPassMsg pass = m.getLastPass();
    return new ControlView(state(m.getState()), m.getAvailableList(), new ControlView.LastPass(pass.getAtMillis(),
        fromWire(pass.getTrigger(), PassTrigger.class, "PASS_TRIGGER_"), List.copyOf(pass.getPlannedList()), List.copyOf(pass.getLeaderlessList())),
        m.getStrategy(), m.getMaxConcurrentMoves(), m.getMaxMovesPerBroker(), m.getPlacementIntervalMillis());
  }

  /** The state's maps travel as lists of their values: each key is a field of its value. */
  private static ControlStateMsg state(ControlState s) {
    ControlStateMsg.Builder b = ControlStateMsg.newBuilder().setPaused(s.paused()).setTableVersion(s.tableVersion())
        .setNextMoveId(s.nextMoveId()).setNextProducerId(s.nextProducerId());
    s.brokers().values().forEach(r -> b.addBrokers(BrokerRecordMsg.newBuilder().setId(r.id()).setZone(r.zone())
        .setMaxShards(r.maxShards()).setEndpoint(endpoint(r.endpoint())).setDraining(r.draining())
        .setReplicaCapacity(r.replicaCapacity())));
    s.streams().values().forEach(r -> b.addStreams(streamRecord(r)));
    s.shards().values().forEach(a -> b.addShards(assignment(a)));
    s.moves().values().forEach(r -> b.addMoves(move(r)));
    s.recentMoves().forEach(r -> b.addRecentMoves(move(r)));
    b.setSecurity(SecurityMessages.state(s.security()));
    return b.build();
  }

  private static ControlState state(ControlStateMsg m) {
    Map<Integer, BrokerRecord> brokers = new HashMap<>();
    m.getBrokersList().forEach(r -> brokers.put(r.getId(), new BrokerRecord(r.getId(), r.getZone(), r.getMaxShards(),
        endpoint(r.getEndpoint()), r.getDraining(), r.getReplicaCapacity())));
    Map<String, StreamRecord> streams = new HashMap<>();
    m.getStreamsList().forEach(r -> streams.put(r.getName(), streamRecord(r)));
    Map<ShardId, ShardAssignment> shards = new HashMap<>();
    m.getShardsList().forEach(s -> {
      ShardAssignment a = assignment(s);
      shards.put(a.id(), a);
    });
    Map<ShardId, MoveRecord> moves = new HashMap<>();
    m.getMovesList().forEach(r -> {
      MoveRecord move = move(r);
      moves.put(move.shard(), move);
    });
    List<MoveRecord> recent = m.getRecentMovesList().stream().map(ControlMessageMapping::move).toList();
    return new ControlState(brokers, streams, shards, moves, recent, m.getPaused(), m.getTableVersion(),
        m.getNextMoveId(), m.getNextProducerId(), SecurityMessages.state(m.getSecurity()));
  }

  private static StreamRecordMsg streamRecord(StreamRecord r) {
    return StreamRecordMsg.newBuilder().setName(r.name()).setShards(r.shards())
        .setReplicationFactor(r.replicationFactor()).setIncarnation(r.incarnation().toString())
        .setConfig(streamConfig(r.config())).build();
  }

  private static StreamRecord streamRecord(StreamRecordMsg m) {
    return new StreamRecord(m.getName(), m.getShards(), m.getReplicationFactor(), incarnation(m.getIncarnation()),
        streamConfig(m.getConfig()));
  }

  private static MoveRecordMsg move(MoveRecord r) {
    return MoveRecordMsg.newBuilder().setMoveId(r.moveId()).setShard(ShardRefs.toRef(r.shard())).setFrom(r.from())
        .setTo(r.to()).setStaged(r.staged()).setReason(r.reason()).setStartedAtMillis(r.startedAtMillis())
        .setFenceEpoch(r.fenceEpoch()).setState(toWire(r.state(), MoveStateMsg.class, "MOVE_STATE_")).setEndedAtMillis(r.endedAtMillis())
        .setDetail(r.detail()).build();
  }

  private static MoveRecord move(MoveRecordMsg m) {
    return new MoveRecord(m.getMoveId(), ShardRefs.toId(m.getShard()), m.getFrom(), m.getTo(), m.getStaged(),
        m.getReason(), m.getStartedAtMillis(), m.getFenceEpoch(),
        fromWire(m.getState(), MoveState.class, "MOVE_STATE_"), m.getEndedAtMillis(), m.getDetail());
  }
}
