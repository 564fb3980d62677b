package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.node.BrokerNode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.RecordMetadata;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Acks;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's INTERNAL and EXTERNAL listeners: three brokers with a second client listener whose advertised host
 * ("localhost") differs from the internal one ("127.0.0.1"), as a compose cluster's published ports differ from the
 * container names. A client on either listener is told only addresses of that listener, and a cluster-mode client
 * that knows one external address reaches every leader through the external listeners.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class ExternalListenerClusterTest {
  private static final String STREAM = "outside";

  @Test
  void clientsOfTheExternalListenerAreToldExternalAddressesAndReachEveryLeaderThere() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "felix.broker.external-client-port", 0,
        "felix.broker.external-advertised-host", "localhost"))) {
      BrokerNode first = cluster.broker(0);
      cluster.awaitBrokersLive(first, 3);
      cluster.createStreamAndPausePlacement(first, STREAM, 3);

      Map<Integer, String> internal = new TreeMap<>();
      Map<Integer, String> external = new TreeMap<>();
      for (BrokerNode b : cluster.live()) {
        BrokerEndpoint e = b.endpoint();
        assertNotEquals(e.clientPort(), e.externalClientPort(), "broker " + e.id() + " has two client listeners");
        internal.put(e.id(), "127.0.0.1:" + e.clientPort());
        external.put(e.id(), "localhost:" + e.externalClientPort());
      }
      assertEquals(external, brokersInMetadata(first.endpoint().externalClientPort()), "told on the external listener");
      assertEquals(internal, brokersInMetadata(first.endpoint().clientPort()), "told on the internal listener");

      // A leader hint on the external listener names the leader's external address.
      int notLedByFirst = cluster.shardsLedBy(first, STREAM, 1).get(0);
      try (RawClient raw = new RawClient("127.0.0.1", first.endpoint().externalClientPort())) {
        Error notLeader = raw.call(Request.newBuilder().setProduce(ProduceRequest.newBuilder().setStream(STREAM)
            .setShard(notLedByFirst).setRecords(RecordLists.encode(List.of(Record.newBuilder()
                .setValue(ByteString.copyFromUtf8("hint")).build()))))).getError();
        assertEquals(List.of(ErrorCode.NOT_LEADER, 1, external.get(1)),
            List.of(notLeader.getCode(), notLeader.getLeaderId(), notLeader.getLeaderAddress()));
      }

      // A cluster-mode client that knows only broker 0's external address produces to all three shards' leaders.
      long[] acceptedBefore = externalConnectionsAccepted(cluster);
      try (FelixClient client = new FelixClient(ClientSettings.builder(external.get(0)).acks(Acks.QUORUM)
          .linger(Duration.ofMillis(1)).requestTimeout(Duration.ofSeconds(5)).ackTimeout(Duration.ofSeconds(3))
          .build())) {
        List<CompletableFuture<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          sent.add(client.produce(STREAM, i % 3, null, ("r" + i).getBytes(StandardCharsets.UTF_8), List.of()));
        }
        TreeSet<Integer> shards = new TreeSet<>();
        for (CompletableFuture<RecordMetadata> f : sent) {
          shards.add(f.get(30, TimeUnit.SECONDS).shard());
        }
        assertEquals(new TreeSet<>(List.of(0, 1, 2)), shards);
      }
      long[] acceptedAfter = externalConnectionsAccepted(cluster);
      for (int b = 0; b < 3; b++) {
        assertTrue(acceptedAfter[b] > acceptedBefore[b], "the client reached broker " + b + "'s external listener");
      }
    }
  }

  private static Map<Integer, String> brokersInMetadata(int port) throws Exception {
    try (RawClient raw = new RawClient("127.0.0.1", port)) {
      Response r = raw.call(Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addStreams(STREAM)));
      Map<Integer, String> told = new TreeMap<>();
      r.getMetadata().getBrokersList().forEach(b -> told.put(b.getId(), b.getHost() + ":" + b.getPort()));
      return told;
    }
  }

  private static long[] externalConnectionsAccepted(BrokerCluster cluster) {
    long[] accepted = new long[3];
    for (BrokerNode b : cluster.live()) {
      accepted[b.id()] = b.dataPlane().externalListener().orElseThrow().connectionsAccepted();
    }
    return accepted;
  }
}
