package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.client.HostPort;
import io.felix.protocol.FrameCodec;
import io.felix.protocol.client.InitProducerIdRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Producer ids on real brokers: each broker hands out ids from its own block of the placement singleton, and a
 * singleton started on another broker after its host stopped continues above every block allocated before (the
 * high-water mark is in the journal), so no id is handed out twice.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ProducerIdAllocationClusterTest {
  private static final FrameCodec CODEC = FrameCodec.withDefaults();

  @Test
  void brokersHandOutIdsFromDistinctBlocksAndANewSingletonNeverRepeatsOne() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of(
        "pekko.coordinated-shutdown.run-by-actor-system-terminate", "off"))) {
      BrokerNode host = cluster.singletonHost();
      assertEquals(0, host.id(), "the first broker is the oldest member");
      cluster.awaitReady();
      // Each broker asks for its block when it starts, in whatever order they start: blocks, not their order.
      long first0 = producerId(cluster.broker(0));
      assertEquals(first0 + 1, producerId(cluster.broker(0)), "the next id of the same block");
      long first1 = producerId(cluster.broker(1));
      long first2 = producerId(cluster.broker(2));
      assertEquals(3, Set.of(block(first0), block(first1), block(first2)).size(), "a block of its own per broker");
      long highestBlock = Math.max(block(first0), Math.max(block(first1), block(first2)));

      cluster.stop(host);
      BrokerNode other = cluster.broker(1);
      BrokerCluster.await(Duration.ofSeconds(40), "the singleton answering on another broker", () ->
          cluster.get(other, "/v1/replication-status").status() == 200);
      // Broker 1 goes on with its block, asks the new singleton for the next one half-way through, and then hands out
      // ids of a block above every earlier one (the new singleton recovered the allocations from the journal).
      for (long expected = first1 + 1; expected < block(first1) + ProducerIdBlock.SIZE; expected++) {
        assertEquals(expected, producerId(other), "broker 1's block");
      }
      long next = producerId(other);
      assertEquals(0, next % ProducerIdBlock.SIZE, "the first id of a new block: " + next);
      assertTrue(next > highestBlock, "the new singleton allocates above every earlier block: " + next);
    }
  }

  private static long block(long producerId) {
    return producerId - producerId % ProducerIdBlock.SIZE;
  }

  /** InitProducerId on a fresh connection, asked again while the broker answers TIMEOUT (no singleton yet). */
  private static long producerId(BrokerNode broker) throws Exception {
    HostPort address = HostPort.parse(broker.endpoint().clientAddress());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      try (Socket socket = new Socket(address.host(), address.port())) {
        socket.setSoTimeout(20_000);
        OutputStream out = socket.getOutputStream();
        InputStream in = new BufferedInputStream(socket.getInputStream());
        CODEC.write(Request.newBuilder().setCorrelationId(1)
            .setInitProducerId(InitProducerIdRequest.getDefaultInstance()).build(), out);
        out.flush();
        Response r = CODEC.parseResponse(CODEC.readFrame(in));
        if (r.hasInitProducerId()) {
          assertEquals(0, r.getInitProducerId().getProducerEpoch());
          return r.getInitProducerId().getProducerId();
        }
        assertTrue(System.nanoTime() < deadline, "no producer id from broker " + broker.id() + ": " + r.getError());
      }
      Thread.sleep(200);
    }
  }
}
