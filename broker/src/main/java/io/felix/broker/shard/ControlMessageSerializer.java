package io.felix.broker.shard;

import com.google.protobuf.InvalidProtocolBufferException;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.protocol.replication.ApplyAssignmentsMsg;
import io.felix.protocol.replication.AssignmentTableMsg;
import io.felix.protocol.replication.BrokerEndpointMsg;
import io.felix.protocol.replication.DescribeReplicaMsg;
import io.felix.protocol.replication.FenceShardMsg;
import io.felix.protocol.replication.ReplicaStatusMsg;
import io.felix.protocol.replication.ShardAssignmentMsg;
import io.felix.protocol.replication.ShardRef;
import java.io.NotSerializableException;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Protobuf serializer for every {@link ControlMessage} (the ReplicaDirectory's commands and ReplicaStatus), as
 * defined in felix_replication.proto. Actor references travel as strings through {@link ActorRefResolver}.
 */
public final class ControlMessageSerializer extends SerializerWithStringManifest {
  /** Fixed and unique among the system's serializers (Pekko's own use ids below 100). */
  public static final int IDENTIFIER = 5301;

  private static final String APPLY = "A";
  private static final String FENCE = "F";
  private static final String DESCRIBE = "D";
  private static final String STATUS = "S";

  private final ExtendedActorSystem system;
  private volatile ActorRefResolver resolver;

  public ControlMessageSerializer(ExtendedActorSystem system) {
    this.system = system;
  }

  @Override
  public int identifier() {
    return IDENTIFIER;
  }

  @Override
  public String manifest(Object o) {
    if (o instanceof ReplicaDirectory.ApplyAssignments) {
      return APPLY;
    } else if (o instanceof ReplicaDirectory.FenceShard) {
      return FENCE;
    } else if (o instanceof ReplicaDirectory.DescribeReplica) {
      return DESCRIBE;
    } else if (o instanceof ReplicaStatus) {
      return STATUS;
    }
    throw new IllegalArgumentException("no protobuf mapping for " + o.getClass().getName());
  }

  @Override
  public byte[] toBinary(Object o) {
    if (o instanceof ReplicaDirectory.ApplyAssignments m) {
      return ApplyAssignmentsMsg.newBuilder().setTable(toMsg(m.table())).build().toByteArray();
    } else if (o instanceof ReplicaDirectory.FenceShard m) {
      return FenceShardMsg.newBuilder().setShard(ref(m.id())).setNewEpoch(m.newEpoch())
          .setReplyTo(resolver().toSerializationFormat(m.replyTo())).build().toByteArray();
    } else if (o instanceof ReplicaDirectory.DescribeReplica m) {
      return DescribeReplicaMsg.newBuilder().setShard(ref(m.id()))
          .setReplyTo(resolver().toSerializationFormat(m.replyTo())).build().toByteArray();
    } else if (o instanceof ReplicaStatus s) {
      return ReplicaStatusMsg.newBuilder().setShard(ref(s.id())).setBrokerId(s.brokerId()).setHosted(s.hosted())
          .setRole(s.role()).setLastEpoch(s.lastEpoch()).setLogEndOffset(s.logEndOffset())
          .setCommitOffset(s.commitOffset()).setFailed(s.failed()).build().toByteArray();
    }
    throw new IllegalArgumentException("no protobuf mapping for " + o.getClass().getName());
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    try {
      switch (manifest) {
        case APPLY:
          return new ReplicaDirectory.ApplyAssignments(fromMsg(ApplyAssignmentsMsg.parseFrom(bytes).getTable()));
        case FENCE: {
          FenceShardMsg m = FenceShardMsg.parseFrom(bytes);
          return new ReplicaDirectory.FenceShard(id(m.getShard()), m.getNewEpoch(), statusRef(m.getReplyTo()));
        }
        case DESCRIBE: {
          DescribeReplicaMsg m = DescribeReplicaMsg.parseFrom(bytes);
          return new ReplicaDirectory.DescribeReplica(id(m.getShard()), statusRef(m.getReplyTo()));
        }
        case STATUS: {
          ReplicaStatusMsg m = ReplicaStatusMsg.parseFrom(bytes);
          return new ReplicaStatus(id(m.getShard()), m.getBrokerId(), m.getHosted(), m.getRole(), m.getLastEpoch(),
              m.getLogEndOffset(), m.getCommitOffset(), m.getFailed());
        }
        default:
          throw new NotSerializableException("unknown control message manifest '" + manifest + "'");
      }
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw new NotSerializableException("bad control message (manifest " + manifest + "): " + e.getMessage());
    }
  }

  public static AssignmentTableMsg toMsg(AssignmentTable table) {
    AssignmentTableMsg.Builder b = AssignmentTableMsg.newBuilder().setVersion(table.version())
        .putAllStreams(table.streams());
    table.brokers().values().stream().sorted((x, y) -> Integer.compare(x.id(), y.id())).forEach(e ->
        b.addBrokers(BrokerEndpointMsg.newBuilder().setId(e.id()).setHost(e.host()).setClientPort(e.clientPort())
            .setReplicationPort(e.replicationPort()).setAdminPort(e.adminPort())));
    for (ShardAssignment a : table.shards().values()) {
      b.addShards(ShardAssignmentMsg.newBuilder().setShard(ref(a.id())).addAllReplicas(a.replicas())
          .addAllLearners(a.learners()).setLeader(a.leader()).setLeaderEpoch(a.leaderEpoch()));
    }
    return b.build();
  }

  public static AssignmentTable fromMsg(AssignmentTableMsg m) {
    Map<Integer, BrokerEndpoint> brokers = new HashMap<>();
    for (BrokerEndpointMsg e : m.getBrokersList()) {
      brokers.put(e.getId(), new BrokerEndpoint(e.getId(), e.getHost(), e.getClientPort(), e.getReplicationPort(),
          e.getAdminPort()));
    }
    TreeMap<ShardId, ShardAssignment> shards = new TreeMap<>();
    for (ShardAssignmentMsg s : m.getShardsList()) {
      ShardId id = id(s.getShard());
      shards.put(id, new ShardAssignment(id, s.getReplicasList(), s.getLearnersList(), s.getLeader(),
          s.getLeaderEpoch()));
    }
    return new AssignmentTable(m.getVersion(), brokers, m.getStreamsMap(), shards);
  }

  public static ShardRef ref(ShardId id) {
    return ShardRef.newBuilder().setStream(id.stream()).setShard(id.shard()).build();
  }

  public static ShardId id(ShardRef ref) {
    return new ShardId(ref.getStream(), ref.getShard());
  }

  private ActorRef<ReplicaStatus> statusRef(String path) {
    return resolver().resolveActorRef(path);
  }

  private ActorRefResolver resolver() {
    ActorRefResolver r = resolver;
    if (r == null) {
      r = ActorRefResolver.get(Adapter.toTyped(system));
      resolver = r;
    }
    return r;
  }
}
