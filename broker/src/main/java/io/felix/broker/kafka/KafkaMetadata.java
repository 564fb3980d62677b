package io.felix.broker.kafka;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.MetadataRequest;

/**
 * Metadata and DescribeCluster from the assignment table: a stream is a topic (its incarnation the topic id), a
 * shard a partition, the shard's leader and leader epoch the partition's. Brokers are listed with their Kafka
 * listener's address; a leader whose Kafka address is not known yet is LEADER_NOT_AVAILABLE (the client asks again).
 *
 * <p>In forward mode this broker names itself the leader and only replica of every partition and lists only itself,
 * so a client that can reach this one broker sends it everything (see {@link KafkaListenerMode#FORWARD}).
 */
final class KafkaMetadata {
  private final KafkaContext ctx;

  KafkaMetadata(KafkaContext ctx) {
    this.ctx = ctx;
  }

  MetadataResponseData metadata(MetadataRequest request, String principal) {
    AssignmentTable table = ctx.table();
    MetadataResponseData answer = new MetadataResponseData().setClusterId(ctx.settings.clusterId())
        .setControllerId(controller());
    for (KafkaAddressBook.Address a : brokers().values()) {
      answer.brokers().add(new MetadataResponseBroker().setNodeId(a.brokerId()).setHost(a.host()).setPort(a.port()));
    }
    Collection<String> names;
    if (request.isAllTopics()) {
      names = table.streams().keySet().stream().sorted()
          .filter(n -> ctx.authorized(principal, resourceOf(table, n), n, Operation.DESCRIBE)).toList();
    } else {
      names = new LinkedHashSet<>();
      for (var topic : request.data().topics()) {
        if (topic.name() != null) {
          names.add(topic.name());
        } else {
          answer.topics().add(new MetadataResponseTopic().setTopicId(topic.topicId())
              .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
      }
    }
    for (String name : names) {
      answer.topics().add(topic(table, name, principal));
    }
    return answer;
  }

  DescribeClusterResponseData describeCluster() {
    DescribeClusterResponseData answer = new DescribeClusterResponseData().setClusterId(ctx.settings.clusterId())
        .setControllerId(controller()).setErrorCode(Errors.NONE.code());
    for (KafkaAddressBook.Address a : brokers().values()) {
      answer.brokers().add(new DescribeClusterResponseData.DescribeClusterBroker().setBrokerId(a.brokerId())
          .setHost(a.host()).setPort(a.port()));
    }
    return answer;
  }

  /** The brokers clients are told of: every one with a Kafka address, or only this one in forward mode. */
  private Map<Integer, KafkaAddressBook.Address> brokers() {
    Map<Integer, KafkaAddressBook.Address> all = ctx.addresses.all();
    if (ctx.forwards()) {
      return ctx.addresses.of(ctx.brokerId()).map(a -> Map.of(a.brokerId(), a)).orElse(Map.of());
    }
    return all;
  }

  /** Kafka's controller id has no Felix counterpart that clients act on: the lowest broker id known. */
  private int controller() {
    return brokers().keySet().stream().min(Integer::compare).orElse(ctx.brokerId());
  }

  private MetadataResponseTopic topic(AssignmentTable table, String name, String principal) {
    MetadataResponseTopic topic = new MetadataResponseTopic().setName(name)
        .setIsInternal(InternalStreams.isInternal(name));
    Integer shards = table.streams().get(name);
    if (shards == null) {
      return topic.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }
    if (!ctx.authorized(principal, resourceOf(table, name), name, Operation.DESCRIBE)) {
      return topic.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
    }
    List<MetadataResponsePartition> partitions = new ArrayList<>(shards);
    for (int i = 0; i < shards; i++) {
      Optional<ShardAssignment> a = table.shard(new ShardId(name, i));
      if (i == 0) {
        a.ifPresent(x -> topic.setTopicId(KafkaContext.topicId(x.incarnation())));
      }
      partitions.add(partition(i, a));
    }
    return topic.setErrorCode(Errors.NONE.code()).setPartitions(partitions);
  }

  private MetadataResponsePartition partition(int index, Optional<ShardAssignment> assignment) {
    MetadataResponsePartition p = new MetadataResponsePartition().setPartitionIndex(index);
    if (assignment.isEmpty() || assignment.get().leader() == ShardAssignment.NO_LEADER) {
      return p.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setLeaderEpoch(-1);
    }
    ShardAssignment a = assignment.get();
    int epoch = (int) Math.min(Integer.MAX_VALUE, a.leaderEpoch());
    if (ctx.forwards()) {
      List<Integer> self = List.of(ctx.brokerId());
      return p.setErrorCode(Errors.NONE.code()).setLeaderId(ctx.brokerId()).setLeaderEpoch(epoch)
          .setReplicaNodes(self).setIsrNodes(self);
    }
    if (ctx.addresses.of(a.leader()).isEmpty()) {
      return p.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1).setLeaderEpoch(epoch)
          .setReplicaNodes(a.replicas()).setIsrNodes(a.replicas());
    }
    return p.setErrorCode(Errors.NONE.code()).setLeaderId(a.leader()).setLeaderEpoch(epoch)
        .setReplicaNodes(a.replicas()).setIsrNodes(a.replicas());
  }

  static ResourceType resourceOf(AssignmentTable table, String name) {
    return table.streams().containsKey(name) && table.streamConfig(name).forCache() ? ResourceType.CACHE
        : ResourceType.STREAM;
  }
}
