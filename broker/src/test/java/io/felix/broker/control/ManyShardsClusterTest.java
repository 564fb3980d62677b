package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.node.BrokerNode;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRole;
import io.felix.broker.shard.ReplicaStatus;
import io.felix.broker.shard.ReplicaStatuses;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream of many shards is created in batches: one event, one table change, one fence or describe per broker. Every
 * shard's first leader then leads at epoch 1: no replica still opening its log is taken for a failed one (the storm
 * this test guards against failed over thousands of shards at creation), and every broker holds the same table.
 */
@Tag("cluster")
@Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class ManyShardsClusterTest {

  private static final int SHARDS = 600;
  static BrokerCluster cluster;

  @BeforeAll
  static void start() {
    cluster = BrokerCluster.start(3, Map.of());
    cluster.awaitBrokersLive(cluster.live().get(0), 3);
  }

  @AfterAll
  static void stop() {
    cluster.close();
  }

  @Test
  void aStreamOfManyShardsIsLedAtEpochOneWithoutAFailoverAndDescribedInOneBatchPerBroker() throws Exception {
    BrokerNode via = cluster.broker(1);
    BrokerCluster.Reply created = cluster.post(via, "/v1/streams",
        "{\"name\":\"many\",\"shards\":" + SHARDS + ",\"replication_factor\":3}");
    assertEquals(201, created.status(), created.body());

    BrokerCluster.await(Duration.ofSeconds(90), "every shard of 'many' led by its assigned leader",
        () -> leading(cluster.get(cluster.broker(0), "/v1/streams/many").json()) == SHARDS);

    JsonNode many = cluster.get(cluster.broker(2), "/v1/streams/many").json();
    for (JsonNode shard : many.get("shard_assignments")) {
      assertEquals(1, shard.get("epoch").asLong(), "shard " + shard.get("shard") + " was failed over");
    }
    long version = cluster.broker(0).dataPlane().registry().table().version();
    BrokerCluster.await(Duration.ofSeconds(10), "every broker holds table v" + version, () -> cluster.live().stream()
        .allMatch(b -> b.dataPlane().registry().table().version() == version));
    assertEquals(SHARDS, cluster.broker(2).dataPlane().registry().table().shards().size());

    // One DescribeReplicas answers for all of a broker's replicas, in one message.
    BrokerNode asker = cluster.broker(0);
    ActorRef<ReplicaDirectory.Command> directory = asker.dataPlane().directory();
    List<ShardId> all = IntStream.range(0, SHARDS).mapToObj(s -> new ShardId("many", s)).toList();
    ReplicaStatuses statuses = AskPattern.<ReplicaDirectory.Command, ReplicaStatuses>ask(directory,
        replyTo -> new ReplicaDirectory.DescribeReplicas(7, all, 5_000, replyTo), Duration.ofSeconds(10),
        asker.system().scheduler()).toCompletableFuture().get();
    assertEquals(7, statuses.requestId());
    assertEquals(SHARDS, statuses.statuses().size());
    long led = statuses.statuses().stream().filter(s -> s.role() == ReplicaRole.LEADER).count();
    assertEquals(cluster.get(asker, "/v1/replication-status?format=json").json().get("streams").get("many").get("0")
        .asLong(), led, "the leaders broker 0 says it has");
    assertEquals(SHARDS - led, statuses.statuses().stream().map(ReplicaStatus::role)
        .filter(r -> r == ReplicaRole.FOLLOWER).count());
  }

  private static long leading(JsonNode stream) {
    long leading = 0;
    for (JsonNode shard : stream.get("shard_assignments")) {
      if ("leader".equals(shard.get("replica_states").path(shard.get("leader").asText()).asText())) {
        leading++;
      }
    }
    return leading;
  }
}
