package io.felix.broker.kafka;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Routes a parsed Kafka request of an authenticated connection to its API's handler; every API the listener
 * advertises ({@link KafkaApis}) has a case here. Thread-safe.
 */
final class KafkaRequests {
  private final KafkaMetadata metadata;
  private final KafkaProduce produce;
  private final KafkaFetch fetch;
  private final KafkaOffsets offsets;
  private final KafkaTopics topics;
  private final KafkaGroups groups;

  KafkaRequests(KafkaContext ctx, KafkaTopics topics, KafkaGroups groups) {
    this.metadata = new KafkaMetadata(ctx);
    this.produce = new KafkaProduce(ctx);
    this.fetch = new KafkaFetch(ctx);
    this.offsets = new KafkaOffsets(ctx);
    this.topics = topics;
    this.groups = groups;
  }

  /** @return the answer's body, or null when the request gets none (a produce with acks 0) */
  CompletionStage<? extends ApiMessage> handle(RequestHeader header, AbstractRequest request, String principal) {
    short version = header.apiVersion();
    return switch (header.apiKey()) {
      case METADATA -> done(metadata.metadata((MetadataRequest) request, principal));
      case DESCRIBE_CLUSTER -> done(metadata.describeCluster());
      case PRODUCE -> produce.produce((ProduceRequestData) request.data(), version, principal);
      case INIT_PRODUCER_ID -> produce.initProducerId((InitProducerIdRequestData) request.data(), principal);
      case FETCH -> fetch.fetch((FetchRequestData) request.data(), principal);
      case LIST_OFFSETS -> offsets.listOffsets((ListOffsetsRequestData) request.data(), version, principal);
      case OFFSET_FOR_LEADER_EPOCH ->
          offsets.offsetForLeaderEpoch((OffsetForLeaderEpochRequestData) request.data(), principal);
      case CREATE_TOPICS -> topics.createTopics((CreateTopicsRequestData) request.data(), principal);
      case DELETE_TOPICS -> topics.deleteTopics((DeleteTopicsRequestData) request.data(), principal);
      case CREATE_PARTITIONS -> topics.createPartitions((CreatePartitionsRequestData) request.data(), principal);
      case DESCRIBE_CONFIGS -> done(topics.describeConfigs((DescribeConfigsRequestData) request.data(), principal));
      case FIND_COORDINATOR, JOIN_GROUP, SYNC_GROUP, HEARTBEAT, LEAVE_GROUP, OFFSET_COMMIT, OFFSET_FETCH, LIST_GROUPS,
          DESCRIBE_GROUPS -> groups.handle(header, request, principal);
      default -> done(request.getErrorResponse(0, Errors.UNSUPPORTED_VERSION.exception(header.apiKey()
          + " is not served by Felix")).data());
    };
  }

  private static <T extends ApiMessage> CompletionStage<T> done(T message) {
    return CompletableFuture.completedFuture(message);
  }
}
