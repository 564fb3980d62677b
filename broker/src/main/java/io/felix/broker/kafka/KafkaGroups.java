package io.felix.broker.kafka;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.group.OffsetsStore;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.protocol.client.CommitOffsetsRequest;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchOffsetsRequest;
import io.felix.protocol.client.FindCoordinatorRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardOffset;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest.CoordinatorType;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;

/**
 * Kafka's consumer-group APIs (the classic protocol). A group's coordinator is Felix's: the broker leading the
 * group's shard of __consumer_offsets (native FindCoordinator). Membership (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) is kept by that broker's {@link KafkaGroupCoordinator}; committed offsets are stored the way Felix's
 * own groups store them, through the native CommitOffsets (as an administrative commit of a group without native
 * members, once the Kafka membership allowed it) into __consumer_offsets, answered once on a majority, and read
 * back with the native FetchOffsets; a commit's metadata string and leader epoch are not kept. A group
 * request at a broker that does not coordinate the group gets NOT_COORDINATOR, as Kafka answers; in forward mode
 * too (the client must reach the coordinator FindCoordinator names for groups).
 */
final class KafkaGroups {
  private final KafkaContext ctx;
  private final ActorRef<KafkaGroupCoordinator.Command> coordinator;

  private KafkaGroups(KafkaContext ctx, ActorRef<KafkaGroupCoordinator.Command> coordinator) {
    this.ctx = ctx;
    this.coordinator = coordinator;
  }

  static KafkaGroups start(ActorContext<?> guardian, KafkaContext ctx, Clock clock) {
    KafkaListenerSettings s = ctx.settings;
    ClassicGroup.Timing timing = new ClassicGroup.Timing(s.minSessionTimeout(), s.maxSessionTimeout(),
        s.maxRebalanceTimeout(), s.initialRebalanceDelay());
    ActorRef<KafkaGroupCoordinator.Command> ref = guardian.spawn(KafkaGroupCoordinator.create(timing, clock,
        group -> coordination(ctx, group) == Errors.NONE), "kafka-group-coordinator");
    return new KafkaGroups(ctx, ref);
  }

  CompletionStage<? extends ApiMessage> handle(RequestHeader header, AbstractRequest request, String principal) {
    short version = header.apiVersion();
    return switch (header.apiKey()) {
      case FIND_COORDINATOR -> findCoordinator((FindCoordinatorRequestData) request.data(), version, principal);
      case JOIN_GROUP -> join((JoinGroupRequestData) request.data(), version, header.clientId(), principal);
      case SYNC_GROUP -> sync((SyncGroupRequestData) request.data(), principal);
      case HEARTBEAT -> heartbeat((HeartbeatRequestData) request.data(), principal);
      case LEAVE_GROUP -> leave((LeaveGroupRequestData) request.data(), principal);
      case OFFSET_COMMIT -> commit((OffsetCommitRequestData) request.data(), principal);
      case OFFSET_FETCH -> fetchOffsets((OffsetFetchRequestData) request.data(), principal);
      case LIST_GROUPS -> listGroups((ListGroupsRequestData) request.data());
      case DESCRIBE_GROUPS -> describeGroups((DescribeGroupsRequestData) request.data(), principal);
      default -> throw new IllegalArgumentException("not a group API: " + header.apiKey());
    };
  }

  /** NONE when this broker coordinates the group now, else NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE. */
  static Errors coordination(KafkaContext ctx, String group) {
    AssignmentTable table = ctx.table();
    Integer shards = table.streams().get(OffsetsStore.STREAM);
    if (shards == null) {
      return Errors.COORDINATOR_NOT_AVAILABLE;
    }
    int leader = table.shard(new ShardId(OffsetsStore.STREAM, OffsetsStore.shardOf(group, shards)))
        .map(ShardAssignment::leader).orElse(ShardAssignment.NO_LEADER);
    return leader == ctx.brokerId() ? Errors.NONE
        : leader == ShardAssignment.NO_LEADER ? Errors.COORDINATOR_NOT_AVAILABLE : Errors.NOT_COORDINATOR;
  }

  private CompletionStage<FindCoordinatorResponseData> findCoordinator(FindCoordinatorRequestData request,
      short version, String principal) {
    List<String> keys = version >= 4 ? request.coordinatorKeys() : List.of(request.key());
    List<CompletableFuture<FindCoordinatorResponseData.Coordinator>> found = new ArrayList<>();
    for (String key : keys) {
      if (request.keyType() != CoordinatorType.GROUP.id()) {
        found.add(CompletableFuture.completedFuture(new FindCoordinatorResponseData.Coordinator().setKey(key)
            .setNodeId(-1).setHost("").setPort(-1).setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
            .setErrorMessage("Felix does not support transactions")));
        continue;
      }
      found.add(ctx.felix(Request.newBuilder().setFindCoordinator(FindCoordinatorRequest.newBuilder()
          .setGroup(key)).build(), principal).toCompletableFuture().thenApply(r -> coordinatorOf(key, r)));
    }
    return CompletableFuture.allOf(found.toArray(new CompletableFuture[0])).thenApply(done -> {
      FindCoordinatorResponseData answer = new FindCoordinatorResponseData();
      if (version >= 4) {
        found.forEach(f -> answer.coordinators().add(f.join()));
        return answer;
      }
      FindCoordinatorResponseData.Coordinator c = found.get(0).join();
      return answer.setErrorCode(c.errorCode()).setErrorMessage(c.errorMessage()).setNodeId(c.nodeId())
          .setHost(c.host()).setPort(c.port());
    });
  }

  private FindCoordinatorResponseData.Coordinator coordinatorOf(String key, Response r) {
    FindCoordinatorResponseData.Coordinator c = new FindCoordinatorResponseData.Coordinator().setKey(key)
        .setNodeId(-1).setHost("").setPort(-1);
    if (r.hasError() && r.getError().getCode() != ErrorCode.NONE) {
      Errors e = switch (r.getError().getCode()) {
        case AUTHORIZATION_FAILED -> Errors.GROUP_AUTHORIZATION_FAILED;
        case INVALID_REQUEST -> Errors.INVALID_GROUP_ID;
        default -> Errors.COORDINATOR_NOT_AVAILABLE;
      };
      return c.setErrorCode(e.code()).setErrorMessage(r.getError().getMessage());
    }
    int id = r.getFindCoordinator().getCoordinatorId();
    return ctx.addresses.of(id).map(a -> c.setErrorCode(Errors.NONE.code()).setNodeId(id).setHost(a.host())
            .setPort(a.port()))
        .orElseGet(() -> c.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
            .setErrorMessage("broker " + id + " coordinates the group; its Kafka listener is not known yet"));
  }

  /** Null when {@code principal} may {@code op} the group here and this broker coordinates it; else the error. */
  private Errors refusal(String group, String principal, Operation op) {
    if (!ctx.authorized(principal, ResourceType.CONSUMER_GROUP, group, op)) {
      return Errors.GROUP_AUTHORIZATION_FAILED;
    }
    Errors e = coordination(ctx, group);
    return e == Errors.NONE ? null : e;
  }

  private CompletionStage<JoinGroupResponseData> join(JoinGroupRequestData r, short version, String clientId,
      String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.CONSUME);
    if (refused != null) {
      return CompletableFuture.completedFuture(new JoinGroupResponseData().setErrorCode(refused.code())
          .setGenerationId(-1).setMemberId(r.memberId()).setLeader("").setProtocolName(""));
    }
    CompletableFuture<JoinGroupResponseData> reply = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.Join(r, version, clientId == null ? "" : clientId, "/" + clientId,
        reply));
    return reply;
  }

  private CompletionStage<SyncGroupResponseData> sync(SyncGroupRequestData r, String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.CONSUME);
    if (refused != null) {
      return CompletableFuture.completedFuture(new SyncGroupResponseData().setErrorCode(refused.code())
          .setAssignment(new byte[0]));
    }
    CompletableFuture<SyncGroupResponseData> reply = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.Sync(r, reply));
    return reply;
  }

  private CompletionStage<HeartbeatResponseData> heartbeat(HeartbeatRequestData r, String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.CONSUME);
    if (refused != null) {
      return CompletableFuture.completedFuture(new HeartbeatResponseData().setErrorCode(refused.code()));
    }
    CompletableFuture<Errors> reply = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.Heartbeat(r.groupId(), r.memberId(), r.generationId(), reply));
    return reply.thenApply(e -> new HeartbeatResponseData().setErrorCode(e.code()));
  }

  private CompletionStage<LeaveGroupResponseData> leave(LeaveGroupRequestData r, String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.CONSUME);
    if (refused != null) {
      return CompletableFuture.completedFuture(new LeaveGroupResponseData().setErrorCode(refused.code()));
    }
    boolean batch = r.members() != null && !r.members().isEmpty();
    List<String> ids = batch ? r.members().stream().map(LeaveGroupRequestData.MemberIdentity::memberId).toList()
        : List.of(r.memberId());
    CompletableFuture<List<Errors>> reply = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.Leave(r.groupId(), ids, reply));
    return reply.thenApply(errors -> {
      LeaveGroupResponseData answer = new LeaveGroupResponseData().setErrorCode(Errors.NONE.code());
      if (batch) {
        for (int i = 0; i < ids.size(); i++) {
          answer.members().add(new LeaveGroupResponseData.MemberResponse().setMemberId(ids.get(i))
              .setGroupInstanceId(r.members().get(i).groupInstanceId()).setErrorCode(errors.get(i).code()));
        }
        return answer;
      }
      return answer.setErrorCode(errors.get(0).code());
    });
  }

  private CompletionStage<OffsetCommitResponseData> commit(OffsetCommitRequestData r, String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.CONSUME);
    if (refused != null) {
      return CompletableFuture.completedFuture(commitAnswer(r, t -> refused));
    }
    CompletableFuture<Errors> allowed = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.MayCommit(r.groupId(), r.memberId() == null ? "" : r.memberId(),
        r.generationIdOrMemberEpoch(), allowed));
    return allowed.thenCompose(verdict -> {
      if (verdict != Errors.NONE) {
        return CompletableFuture.completedFuture(commitAnswer(r, t -> verdict));
      }
      List<CompletableFuture<Errors>> perTopic = new ArrayList<>();
      for (OffsetCommitRequestData.OffsetCommitRequestTopic t : r.topics()) {
        CommitOffsetsRequest.Builder c = CommitOffsetsRequest.newBuilder().setGroup(r.groupId()).setMemberId("")
            .setGeneration(-1).setStream(t.name());
        t.partitions().forEach(p -> c.addOffsets(ShardOffset.newBuilder().setShard(p.partitionIndex())
            .setOffset(p.committedOffset())));
        perTopic.add(ctx.felix(Request.newBuilder().setCommitOffsets(c).build(), principal).toCompletableFuture()
            .thenApply(response -> commitError(response)));
      }
      return CompletableFuture.allOf(perTopic.toArray(new CompletableFuture[0])).thenApply(done -> {
        List<Errors> errors = perTopic.stream().map(CompletableFuture::join).toList();
        int[] i = {0};
        return commitAnswer(r, t -> errors.get(i[0]++));
      });
    });
  }

  private static Errors commitError(Response response) {
    if (!response.hasError() || response.getError().getCode() == ErrorCode.NONE) {
      return Errors.NONE;
    }
    return switch (response.getError().getCode()) {
      case UNKNOWN_STREAM, UNKNOWN_SHARD -> Errors.UNKNOWN_TOPIC_OR_PARTITION;
      case INVALID_REQUEST -> Errors.INVALID_COMMIT_OFFSET_SIZE;
      case AUTHORIZATION_FAILED -> Errors.GROUP_AUTHORIZATION_FAILED;
      case NOT_COORDINATOR -> Errors.NOT_COORDINATOR;
      case NOT_LEADER, TIMEOUT, NOT_ENOUGH_REPLICAS -> Errors.COORDINATOR_NOT_AVAILABLE;
      default -> KafkaErrors.of(response);
    };
  }

  /** The commit's answer, every partition of a topic with the topic's error. */
  private static OffsetCommitResponseData commitAnswer(OffsetCommitRequestData r,
      Function<OffsetCommitRequestData.OffsetCommitRequestTopic, Errors> errorOf) {
    OffsetCommitResponseData answer = new OffsetCommitResponseData();
    for (OffsetCommitRequestData.OffsetCommitRequestTopic t : r.topics()) {
      Errors e = errorOf.apply(t);
      OffsetCommitResponseData.OffsetCommitResponseTopic topic = new OffsetCommitResponseData
          .OffsetCommitResponseTopic().setName(t.name());
      t.partitions().forEach(p -> topic.partitions().add(new OffsetCommitResponseData.OffsetCommitResponsePartition()
          .setPartitionIndex(p.partitionIndex()).setErrorCode(e.code())));
      answer.topics().add(topic);
    }
    return answer;
  }

  /** OffsetFetch (one group, versions 1-7): the named partitions, or every committed one when topics is null. */
  private CompletionStage<OffsetFetchResponseData> fetchOffsets(OffsetFetchRequestData r, String principal) {
    Errors refused = refusal(r.groupId(), principal, Operation.DESCRIBE);
    if (refused != null) {
      return CompletableFuture.completedFuture(new OffsetFetchResponseData().setErrorCode(refused.code()));
    }
    List<String> names;
    if (r.topics() == null) {
      names = ctx.table().streams().keySet().stream().filter(n -> !InternalStreams.isInternal(n)).sorted().toList();
    } else {
      names = r.topics().stream().map(OffsetFetchRequestData.OffsetFetchRequestTopic::name).toList();
    }
    List<CompletableFuture<OffsetFetchResponseData.OffsetFetchResponseTopic>> topics = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      List<Integer> wanted = r.topics() == null ? null : r.topics().get(i).partitionIndexes();
      topics.add(ctx.felix(Request.newBuilder().setFetchOffsets(FetchOffsetsRequest.newBuilder()
              .setGroup(r.groupId()).setStream(name)).build(), principal).toCompletableFuture()
          .thenApply(response -> offsetsOf(name, wanted, response)));
    }
    return CompletableFuture.allOf(topics.toArray(new CompletableFuture[0])).thenApply(done -> {
      OffsetFetchResponseData answer = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
      for (var t : topics) {
        OffsetFetchResponseData.OffsetFetchResponseTopic topic = t.join();
        if (r.topics() != null || !topic.partitions().isEmpty()) {
          answer.topics().add(topic);
        }
      }
      return answer;
    });
  }

  private static OffsetFetchResponseData.OffsetFetchResponseTopic offsetsOf(String name, List<Integer> wanted,
      Response response) {
    OffsetFetchResponseData.OffsetFetchResponseTopic topic = new OffsetFetchResponseData.OffsetFetchResponseTopic()
        .setName(name);
    Errors error = commitError(response);
    if (error != Errors.NONE) {
      if (wanted != null) {
        wanted.forEach(p -> topic.partitions().add(partition(p, -1, error)));
      }
      return topic;
    }
    for (ShardOffset o : response.getFetchOffsets().getOffsetsList()) {
      if (wanted == null ? o.getOffset() >= 0 : wanted.contains(o.getShard())) {
        topic.partitions().add(partition(o.getShard(), o.getOffset(), Errors.NONE));
      }
    }
    if (wanted != null) {
      for (int p : wanted) {
        if (topic.partitions().stream().noneMatch(x -> x.partitionIndex() == p)) {
          topic.partitions().add(partition(p, -1, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
      }
    }
    return topic;
  }

  private static OffsetFetchResponseData.OffsetFetchResponsePartition partition(int index, long offset,
      Errors error) {
    return new OffsetFetchResponseData.OffsetFetchResponsePartition().setPartitionIndex(index)
        .setCommittedOffset(offset).setCommittedLeaderEpoch(-1).setMetadata("").setErrorCode(error.code());
  }

  private CompletionStage<ListGroupsResponseData> listGroups(ListGroupsRequestData r) {
    CompletableFuture<List<org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup>> reply =
        new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.ListAll(reply));
    return reply.thenApply(groups -> {
      ListGroupsResponseData answer = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
      groups.stream().filter(g -> r.statesFilter() == null || r.statesFilter().isEmpty()
          || r.statesFilter().stream().anyMatch(s -> s.equalsIgnoreCase(g.groupState())))
          .forEach(answer.groups()::add);
      return answer;
    });
  }

  private CompletionStage<DescribeGroupsResponseData> describeGroups(DescribeGroupsRequestData r, String principal) {
    DescribeGroupsResponseData answer = new DescribeGroupsResponseData();
    List<String> ours = new ArrayList<>();
    for (String group : r.groups()) {
      Errors refused = refusal(group, principal, Operation.DESCRIBE);
      if (refused != null) {
        answer.groups().add(new DescribeGroupsResponseData.DescribedGroup().setGroupId(group)
            .setErrorCode(refused.code()).setGroupState("").setProtocolType("").setProtocolData(""));
      } else {
        ours.add(group);
      }
    }
    CompletableFuture<List<DescribeGroupsResponseData.DescribedGroup>> reply = new CompletableFuture<>();
    coordinator.tell(new KafkaGroupCoordinator.Describe(ours, reply));
    return reply.thenApply(described -> {
      described.forEach(answer.groups()::add);
      return answer;
    });
  }
}
