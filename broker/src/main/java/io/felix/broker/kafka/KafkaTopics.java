package io.felix.broker.kafka;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.PlacementController;
import io.felix.broker.log.RetentionSettings;
import io.felix.broker.security.AclEntry;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;

/**
 * CreateTopics, DeleteTopics, CreatePartitions and DescribeConfigs, as the admin API's create, delete and PATCH of a
 * stream: commands to the placement singleton, which persists them and pushes the new table. An answer waits until
 * this broker's table shows the change (or the request's timeout passes), so a client that asks Metadata next sees
 * it. Topic configs map to stream settings: {@code retention.ms}, {@code retention.bytes}, {@code segment.bytes},
 * and {@code cleanup.policy=compact}, which creates a cache (a topic with cleanup.policy=compact is a Felix cache:
 * keyed writes are puts). Any other config is INVALID_CONFIG, so nothing is silently ignored. Creating, deleting and
 * growing topics needs the cluster's alter ACL, as the admin API.
 */
final class KafkaTopics {
  private static final Duration MIN_WAIT = Duration.ofSeconds(1);
  private static final Duration MAX_WAIT = Duration.ofSeconds(30);
  private static final Duration TABLE_POLL = Duration.ofMillis(20);
  /** DescribeConfigs' config_source ids (Kafka's DescribeConfigsResponse.ConfigSource, whose ids are not public). */
  private static final byte TOPIC_CONFIG_SOURCE = 1;
  private static final byte DEFAULT_CONFIG_SOURCE = 5;

  private final KafkaContext ctx;
  private final ActorRef<PlacementController.Command> singleton;

  KafkaTopics(KafkaContext ctx, ActorRef<PlacementController.Command> singleton) {
    this.ctx = ctx;
    this.singleton = singleton;
  }

  CompletionStage<CreateTopicsResponseData> createTopics(CreateTopicsRequestData request, String principal) {
    CreateTopicsResponseData answer = new CreateTopicsResponseData();
    Duration wait = waitOf(request.timeoutMs());
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (CreateTopicsRequestData.CreatableTopic topic : request.topics()) {
      CreatableTopicResult r = new CreatableTopicResult().setName(topic.name())
          .setNumPartitions(topic.numPartitions()).setReplicationFactor(topic.replicationFactor());
      answer.topics().add(r);
      pending.add(createOne(topic, request.validateOnly(), wait, principal, r));
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> answer);
  }

  private CompletableFuture<?> createOne(CreateTopicsRequestData.CreatableTopic topic, boolean validateOnly,
      Duration wait, String principal, CreatableTopicResult r) {
    if (!alterAllowed(principal)) {
      return refuse(r, Errors.CLUSTER_AUTHORIZATION_FAILED, "principal '" + principal + "' may not alter the "
          + "cluster: no ACL allows it; nothing was done");
    }
    if (InternalStreams.isInternal(topic.name())) {
      return refuse(r, Errors.INVALID_TOPIC_EXCEPTION, "names starting with '" + InternalStreams.PREFIX
          + "' are reserved for Felix's internal streams");
    }
    if (!topic.assignments().isEmpty()) {
      return refuse(r, Errors.INVALID_REQUEST, "Felix places replicas itself: manual replica assignments are not "
          + "supported");
    }
    int partitions = topic.numPartitions() < 0 ? 1 : topic.numPartitions();
    int brokers = Math.max(1, ctx.table().brokers().size());
    int rf = topic.replicationFactor() < 0 ? Math.min(ctx.settings.defaultReplicationFactor(), brokers)
        : topic.replicationFactor();
    if (partitions < 1) {
      return refuse(r, Errors.INVALID_PARTITIONS, "num_partitions must be at least 1, got " + topic.numPartitions());
    }
    if (rf < 1 || rf > brokers) {
      return refuse(r, Errors.INVALID_REPLICATION_FACTOR, "replication factor " + rf + " is not between 1 and the "
          + brokers + " brokers");
    }
    StreamConfig config;
    try {
      config = configOf(topic.configs());
    } catch (IllegalArgumentException e) {
      return refuse(r, Errors.INVALID_CONFIG, e.getMessage());
    }
    r.setNumPartitions(partitions).setReplicationFactor((short) rf);
    if (validateOnly) {
      r.setErrorCode(Errors.NONE.code());
      return CompletableFuture.completedFuture(null);
    }
    StreamConfig chosen = config;
    return command(replyTo -> new PlacementController.CreateStream(topic.name(), partitions, rf, chosen, replyTo),
        wait).thenCompose(reply -> {
          if (reply instanceof ControlReply.Rejected rejected) {
            Errors e = rejected.refusal() == ControlReply.Refusal.CONFLICT ? Errors.TOPIC_ALREADY_EXISTS
                : Errors.INVALID_REQUEST;
            return refuse(r, e, rejected.error());
          }
          return tableShows(t -> hasLeaders(t, topic.name()), wait).thenAccept(shown -> {
            r.setErrorCode(Errors.NONE.code());
            ctx.shard(topic.name(), 0).ifPresent(a -> r.setTopicId(KafkaContext.topicId(a.incarnation())));
          });
        }).exceptionally(failure -> {
          r.setErrorCode(Errors.REQUEST_TIMED_OUT.code()).setErrorMessage("the placement singleton did not answer: "
              + failure.getMessage());
          return null;
        });
  }

  /** A stream's settings from topic configs; unknown names and bad values throw, naming them. */
  static StreamConfig configOf(Iterable<CreateTopicsRequestData.CreatableTopicConfig> configs) {
    Long retentionMs = null;
    Long retentionBytes = null;
    Long segmentBytes = null;
    boolean compact = false;
    for (CreateTopicsRequestData.CreatableTopicConfig c : configs) {
      try {
        switch (c.name()) {
          case "retention.ms" -> retentionMs = Long.parseLong(c.value());
          case "retention.bytes" -> retentionBytes = Long.parseLong(c.value());
          case "segment.bytes" -> segmentBytes = Long.parseLong(c.value());
          case "cleanup.policy" -> {
            if (!c.value().equals("compact") && !c.value().equals("delete")) {
              throw new IllegalArgumentException("cleanup.policy must be delete (a stream) or compact (a cache), got '"
                  + c.value() + "'");
            }
            compact = c.value().equals("compact");
          }
          default -> throw new IllegalArgumentException("config '" + c.name() + "' is not supported by Felix "
              + "(supported: retention.ms, retention.bytes, segment.bytes, cleanup.policy)");
        }
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("config '" + c.name() + "' must be a number, got '" + c.value() + "'");
      }
    }
    List<String> problems = StreamConfig.problems(retentionMs, retentionBytes, segmentBytes);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(String.join("; ", problems));
    }
    return new StreamConfig(retentionMs, retentionBytes, segmentBytes, compact ? new CacheConfig(0) : null);
  }

  CompletionStage<DeleteTopicsResponseData> deleteTopics(DeleteTopicsRequestData request, String principal) {
    DeleteTopicsResponseData answer = new DeleteTopicsResponseData();
    Duration wait = waitOf(request.timeoutMs());
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (String name : request.topicNames()) {
      DeletableTopicResult r = new DeletableTopicResult().setName(name);
      answer.responses().add(r);
      if (!alterAllowed(principal)) {
        r.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        continue;
      }
      if (InternalStreams.isInternal(name)) {
        r.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code()).setErrorMessage("'" + name + "' is an internal stream");
        continue;
      }
      pending.add(command(replyTo -> new PlacementController.DeleteStream(name, replyTo), wait)
          .thenCompose(reply -> {
            if (reply instanceof ControlReply.Rejected rejected) {
              r.setErrorCode(rejected.refusal() == ControlReply.Refusal.NOT_FOUND
                  ? Errors.UNKNOWN_TOPIC_OR_PARTITION.code() : Errors.INVALID_REQUEST.code())
                  .setErrorMessage(rejected.error());
              return CompletableFuture.completedFuture(null);
            }
            return tableShows(t -> !t.streams().containsKey(name), wait)
                .thenAccept(shown -> r.setErrorCode(Errors.NONE.code()));
          }).exceptionally(failure -> {
            r.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
            return null;
          }));
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> answer);
  }

  /** Raises a topic's partition count (Felix adds shards; it never removes them). */
  CompletionStage<CreatePartitionsResponseData> createPartitions(CreatePartitionsRequestData request,
      String principal) {
    CreatePartitionsResponseData answer = new CreatePartitionsResponseData();
    Duration wait = waitOf(request.timeoutMs());
    List<CompletableFuture<?>> pending = new ArrayList<>();
    for (CreatePartitionsRequestData.CreatePartitionsTopic topic : request.topics()) {
      CreatePartitionsTopicResult r = new CreatePartitionsTopicResult().setName(topic.name());
      answer.results().add(r);
      Integer now = ctx.table().streams().get(topic.name());
      if (!alterAllowed(principal)) {
        r.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
      } else if (now == null) {
        r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
      } else if (topic.assignments() != null && !topic.assignments().isEmpty()) {
        r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("Felix places replicas itself: manual "
            + "replica assignments are not supported");
      } else if (topic.count() <= now) {
        r.setErrorCode(Errors.INVALID_PARTITIONS.code()).setErrorMessage("topic '" + topic.name() + "' has " + now
            + " partitions; the count can only grow");
      } else if (request.validateOnly()) {
        r.setErrorCode(Errors.NONE.code());
      } else {
        pending.add(command(replyTo -> new PlacementController.ChangeStream(topic.name(), StreamConfig.DEFAULTS,
            topic.count(), replyTo), wait).thenCompose(reply -> {
              if (reply instanceof ControlReply.Rejected rejected) {
                r.setErrorCode(Errors.INVALID_PARTITIONS.code()).setErrorMessage(rejected.error());
                return CompletableFuture.completedFuture(null);
              }
              return tableShows(t -> hasLeaders(t, topic.name()) && t.streams().get(topic.name()) == topic.count(),
                  wait).thenAccept(shown -> r.setErrorCode(Errors.NONE.code()));
            }).exceptionally(failure -> {
              r.setErrorCode(Errors.REQUEST_TIMED_OUT.code());
              return null;
            }));
      }
    }
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture[0])).thenApply(done -> answer);
  }

  /** A topic's retention, segment size and cleanup.policy (compact for a cache); a broker resource gets none. */
  DescribeConfigsResponseData describeConfigs(DescribeConfigsRequestData request, String principal) {
    DescribeConfigsResponseData answer = new DescribeConfigsResponseData();
    AssignmentTable table = ctx.table();
    for (DescribeConfigsRequestData.DescribeConfigsResource resource : request.resources()) {
      DescribeConfigsResult r = new DescribeConfigsResult().setResourceType(resource.resourceType())
          .setResourceName(resource.resourceName()).setErrorCode(Errors.NONE.code());
      answer.results().add(r);
      if (resource.resourceType() == ConfigResource.Type.BROKER.id()
          || resource.resourceType() == ConfigResource.Type.BROKER_LOGGER.id()) {
        continue;
      }
      if (resource.resourceType() != ConfigResource.Type.TOPIC.id()) {
        r.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage("only topic configs are described");
        continue;
      }
      String name = resource.resourceName();
      if (!table.streams().containsKey(name)) {
        r.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        continue;
      }
      if (!ctx.authorized(principal, KafkaMetadata.resourceOf(table, name), name, Operation.DESCRIBE)) {
        r.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        continue;
      }
      StreamConfig own = table.streamConfig(name);
      RetentionSettings.Retention resolved = ctx.registry.retention().resolve(own,
          ctx.system.settings().config().getBytes("felix.log.segment-bytes"));
      Map<String, String[]> entries = new LinkedHashMap<>();
      entries.put("cleanup.policy", new String[] {own.forCache() ? "compact" : "delete",
          own.forCache() ? "dynamic" : "default"});
      entries.put("retention.ms", new String[] {Long.toString(resolved.retentionMs()),
          own.retentionMs() != null ? "dynamic" : "default"});
      entries.put("retention.bytes", new String[] {Long.toString(resolved.retentionBytes()),
          own.retentionBytes() != null ? "dynamic" : "default"});
      entries.put("segment.bytes", new String[] {Long.toString(resolved.segmentBytes()),
          own.segmentBytes() != null ? "dynamic" : "default"});
      Predicate<String> wanted = key -> resource.configurationKeys() == null || resource.configurationKeys().isEmpty()
          || resource.configurationKeys().contains(key);
      entries.forEach((key, value) -> {
        if (wanted.test(key)) {
          r.configs().add(new DescribeConfigsResourceResult().setName(key).setValue(value[0]).setReadOnly(false)
              .setIsSensitive(false).setConfigSource(value[1].equals("dynamic")
                  ? TOPIC_CONFIG_SOURCE : DEFAULT_CONFIG_SOURCE));
        }
      });
    }
    return answer;
  }

  private boolean alterAllowed(String principal) {
    return ctx.authorized(principal, ResourceType.CLUSTER, AclEntry.CLUSTER_NAME, Operation.ALTER);
  }

  private static boolean hasLeaders(AssignmentTable t, String name) {
    Integer shards = t.streams().get(name);
    if (shards == null) {
      return false;
    }
    for (int i = 0; i < shards; i++) {
      if (t.shard(new ShardId(name, i)).map(ShardAssignment::leader).orElse(ShardAssignment.NO_LEADER)
          == ShardAssignment.NO_LEADER) {
        return false;
      }
    }
    return true;
  }

  private CompletableFuture<ControlReply> command(Function<ActorRef<ControlReply>, PlacementController.Command> make,
      Duration wait) {
    return AskPattern.ask(singleton, make::apply, wait, ctx.system.scheduler()).toCompletableFuture();
  }

  /** Completes (true) once this broker's table satisfies {@code test}, or (false) after {@code wait}. */
  private CompletableFuture<Boolean> tableShows(Predicate<AssignmentTable> test, Duration wait) {
    CompletableFuture<Boolean> shown = new CompletableFuture<>();
    long deadline = System.nanoTime() + wait.toNanos();
    poll(test, deadline, shown);
    return shown;
  }

  private void poll(Predicate<AssignmentTable> test, long deadline, CompletableFuture<Boolean> shown) {
    if (test.test(ctx.table())) {
      shown.complete(true);
    } else if (System.nanoTime() - deadline > 0) {
      shown.complete(false);
    } else {
      ctx.system.scheduler().scheduleOnce(TABLE_POLL, () -> poll(test, deadline, shown), ctx.system.executionContext());
    }
  }

  private static Duration waitOf(int timeoutMs) {
    Duration d = Duration.ofMillis(Math.max(0, timeoutMs));
    return d.compareTo(MIN_WAIT) < 0 ? MIN_WAIT : d.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : d;
  }

  private static CompletableFuture<Void> refuse(CreatableTopicResult r, Errors error, String message) {
    r.setErrorCode(error.code()).setErrorMessage(message);
    return CompletableFuture.completedFuture(null);
  }
}
