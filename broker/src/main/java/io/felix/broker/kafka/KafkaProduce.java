package io.felix.broker.kafka;

import io.felix.protocol.client.Acks;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;

/**
 * Produce and InitProducerId. Each partition's batch is converted to a Felix record list ({@link RecordConversion})
 * and sent down the native produce path ({@link KafkaContext#felix}) as a Felix client's batch would be: the same
 * authorization, validation, leader append under the leader's epoch, idempotence check and acks. Kafka's acks map
 * to Felix's: 0 to leader (and no answer, as Kafka), 1 to quorum (stored on a majority: stronger than Kafka's
 * leader-only 1), -1 to all (every in-sync replica).
 *
 * <p>Idempotent producers (KIP-98): InitProducerId hands out ids from the same producer-id blocks as the native
 * InitProducerId; a batch's producer id, epoch and base sequence travel with it, and the leader checks them as
 * Kafka does: a retry of a batch it stored is answered with the original offset, a gap OUT_OF_ORDER_SEQUENCE_NUMBER,
 * an older epoch INVALID_PRODUCER_EPOCH. Transactions are not supported.
 */
final class KafkaProduce {
  private final KafkaContext ctx;

  KafkaProduce(KafkaContext ctx) {
    this.ctx = ctx;
  }

  /** @return the answer, or null for acks 0 (Kafka sends none) */
  CompletionStage<ProduceResponseData> produce(ProduceRequestData request, short version, String principal) {
    Acks acks = switch (request.acks()) {
      case 0 -> Acks.LEADER;
      case 1 -> Acks.QUORUM;
      case -1 -> Acks.ALL;
      default -> null;
    };
    List<CompletableFuture<PartitionProduceResponse>> pending = new ArrayList<>();
    ProduceResponseData answer = new ProduceResponseData();
    for (ProduceRequestData.TopicProduceData topic : request.topicData()) {
      TopicProduceResponse topicAnswer = new TopicProduceResponse().setName(topic.name());
      answer.responses().add(topicAnswer);
      for (ProduceRequestData.PartitionProduceData partition : topic.partitionData()) {
        CompletableFuture<PartitionProduceResponse> one;
        if (acks == null) {
          one = CompletableFuture.completedFuture(refused(partition.index(), Errors.INVALID_REQUIRED_ACKS,
              "acks must be 0, 1 or -1, got " + request.acks()));
        } else if (request.transactionalId() != null) {
          one = CompletableFuture.completedFuture(refused(partition.index(), Errors.INVALID_REQUEST,
              "Felix does not support transactions (transactional id '" + request.transactionalId() + "')"));
        } else {
          one = partition(topic.name(), partition, acks, request.timeoutMs(), version, principal)
              .toCompletableFuture();
        }
        pending.add(one.thenApply(p -> {
          synchronized (topicAnswer) {
            topicAnswer.partitionResponses().add(p);
          }
          return p;
        }));
      }
    }
    CompletableFuture<Void> all = CompletableFuture.allOf(pending.toArray(new CompletableFuture[0]));
    return all.thenApply(done -> {
      answer.responses().forEach(t -> t.partitionResponses().sort((a, b) -> Integer.compare(a.index(), b.index())));
      return request.acks() == 0 ? null : answer;
    });
  }

  private CompletionStage<PartitionProduceResponse> partition(String topic,
      ProduceRequestData.PartitionProduceData partition, Acks acks, int timeoutMs, short version, String principal) {
    RecordConversion.ProduceBatch batch;
    try {
      if (!(partition.records() instanceof MemoryRecords records)) {
        return CompletableFuture.completedFuture(refused(partition.index(), Errors.INVALID_RECORD,
            "the partition's records are missing"));
      }
      batch = RecordConversion.fromKafka(records);
    } catch (RecordConversion.RefusedRecords e) {
      return CompletableFuture.completedFuture(refused(partition.index(), e.error, e.getMessage()));
    }
    ProduceRequest.Builder b = ProduceRequest.newBuilder().setStream(topic).setShard(partition.index())
        .setRecords(batch.records()).setAcks(acks).setTimeoutMs(Math.max(0, timeoutMs))
        .setForwardIfNotLeader(ctx.forwards());
    if (batch.idempotent()) {
      b.setHasProducer(true).setProducerId(batch.producerId()).setProducerEpoch(batch.producerEpoch())
          .setBaseSequence(batch.baseSequence());
    }
    return ctx.felix(Request.newBuilder().setProduce(b).build(), principal)
        .thenApply(response -> answerOf(partition.index(), response, version))
        .exceptionally(failure -> refused(partition.index(), Errors.UNKNOWN_SERVER_ERROR, failure.toString()));
  }

  private static PartitionProduceResponse answerOf(int index, Response response, short version) {
    Errors error = KafkaErrors.of(response);
    PartitionProduceResponse p = new PartitionProduceResponse().setIndex(index).setErrorCode(error.code())
        .setErrorMessage(KafkaErrors.message(response)).setLogAppendTimeMs(-1).setLogStartOffset(-1);
    if (error == Errors.NONE) {
      return p.setBaseOffset(response.getProduce().getBaseOffset());
    }
    p.setBaseOffset(-1);
    if (response.getError().getCode() == ErrorCode.NOT_LEADER && version >= 10
        && response.getError().getLeaderId() >= 0) {
      p.setCurrentLeader(new ProduceResponseData.LeaderIdAndEpoch().setLeaderId(response.getError().getLeaderId())
          .setLeaderEpoch((int) response.getError().getLeaderEpoch()));
    }
    return p;
  }

  private static PartitionProduceResponse refused(int index, Errors error, String message) {
    return new PartitionProduceResponse().setIndex(index).setErrorCode(error.code()).setErrorMessage(message)
        .setBaseOffset(-1).setLogAppendTimeMs(-1).setLogStartOffset(-1);
  }

  /**
   * A new producer id at epoch 0 from the native InitProducerId; a producer that names its id and epoch (KIP-360,
   * after an error it cannot otherwise recover from) keeps its id at the next epoch, as Kafka bumps it.
   */
  CompletionStage<InitProducerIdResponseData> initProducerId(InitProducerIdRequestData request, String principal) {
    InitProducerIdResponseData answer = new InitProducerIdResponseData();
    if (request.transactionalId() != null) {
      return CompletableFuture.completedFuture(answer.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
          .setProducerId(-1).setProducerEpoch((short) -1));
    }
    if (request.producerId() >= 0 && request.producerEpoch() >= 0 && request.producerEpoch() < Short.MAX_VALUE - 1) {
      return CompletableFuture.completedFuture(answer.setErrorCode(Errors.NONE.code())
          .setProducerId(request.producerId()).setProducerEpoch((short) (request.producerEpoch() + 1)));
    }
    return ctx.felix(Request.newBuilder().setInitProducerId(
        io.felix.protocol.client.InitProducerIdRequest.getDefaultInstance()).build(), principal).thenApply(r -> {
          Errors error = KafkaErrors.of(r);
          if (error != Errors.NONE) {
            return answer.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code()).setProducerId(-1)
                .setProducerEpoch((short) -1);
          }
          return answer.setErrorCode(Errors.NONE.code()).setProducerId(r.getInitProducerId().getProducerId())
              .setProducerEpoch((short) r.getInitProducerId().getProducerEpoch());
        });
  }
}
