package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.TestBrokers;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.config.BrokerSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializationExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An assignment table of 100,000 shards (ten streams of 10,000 shards with 128-character names, replication factor
 * 3): whole, it is several times Artery's 2 MiB frame and would be dropped; the singleton's publishing cuts it
 * into parts that each fit, and a broker's holder on another ActorSystem, reached over Artery through the
 * protobuf serializer, puts them back into exactly the table sent.
 */
@Tag("cluster")
@Timeout(value = 2, unit = java.util.concurrent.TimeUnit.MINUTES)
class AssignmentTableChunksClusterTest {
  private static final int FRAME_LIMIT = 2 * 1024 * 1024;

  @Test
  void aTableOf100000ShardsReachesAnotherBrokerInPartsThatEachFitOneFrame(@TempDir Path dir) {
    AssignmentTable table = table(7, 10, 10_000);
    try (TestBrokers brokers = new TestBrokers(dir, 2, "")) {
      ActorSystem<?> receiving = brokers.system(1);
      AtomicReference<AssignmentTable> applied = new AtomicReference<>(AssignmentTable.EMPTY);
      ActorRef<AssignmentHolder.Command> holder = receiving.systemActorOf(AssignmentHolder.create(
          BrokerSettings.fromConfig(receiving.settings().config()), receiving.ignoreRef(), Duration.ofMinutes(1),
          applied::set), "table-holder", Props.empty());
      ActorSystem<?> sending = brokers.system(0);
      ActorRef<AssignmentHolder.Command> remote = ActorRefResolver.get(sending)
          .resolveActorRef(ActorRefResolver.get(receiving).toSerializationFormat(holder));

      assertTrue(serializedSize(sending, new AssignmentHolder.Publish(table)) > 3 * FRAME_LIMIT,
          "whole, the table would not fit one frame");
      List<AssignmentHolder.Command> parts = TableChunks.publishing(table);
      assertEquals(67, parts.size());
      for (AssignmentHolder.Command part : parts) {
        int size = serializedSize(sending, part);
        assertTrue(size < FRAME_LIMIT * 6 / 10, "a part of " + size + " bytes");
        remote.tell(part);
      }
      TestBrokers.await("the holder applied the whole table", Duration.ofSeconds(60),
          () -> applied.get().version() == 7);
      assertEquals(table, applied.get());
      assertTrue(applied.get().streamConfig(String.format("%0128d", 0)).forCache(), "the cache is still a cache");
    }
  }

  @Test
  void partsOfAnOlderVersionAreDroppedAndANewerVersionStartsOver() {
    List<AssignmentHolder.Command> v2 = TableChunks.publishing(table(2, 2, 2_000));
    List<AssignmentHolder.Command> v3 = TableChunks.publishing(table(3, 2, 2_000));
    assertEquals(3, v3.size());
    TableChunks.Assembly assembly = new TableChunks.Assembly();
    assertTrue(assembly.add(chunk(v2.get(0))).isEmpty());
    assertTrue(assembly.add(chunk(v3.get(0))).isEmpty());
    assertTrue(assembly.add(chunk(v2.get(1))).isEmpty(), "older parts are dropped");
    assertTrue(assembly.add(chunk(v2.get(2))).isEmpty());
    assertTrue(assembly.add(chunk(v3.get(2))).isEmpty());
    assertTrue(assembly.add(chunk(v3.get(2))).isEmpty(), "a repeated part counts once");
    AssignmentTable assembled = assembly.add(chunk(v3.get(1))).orElseThrow();
    assertEquals(table(3, 2, 2_000), assembled);
    assertEquals(new StreamConfig(3_600_000L, 1L << 30, 1L << 20), assembled.streamConfig(String.format("%0128d", 1)),
        "a stream's own settings come through the parts");
    assertEquals(List.of(new AssignmentHolder.Publish(table(4, 1, 1_500))), TableChunks.publishing(table(4, 1, 1_500)));
  }

  private static AssignmentHolder.PublishChunk chunk(AssignmentHolder.Command c) {
    return assertInstanceOf(AssignmentHolder.PublishChunk.class, c);
  }

  private static int serializedSize(ActorSystem<?> system, Object message) {
    return SerializationExtension.get(Adapter.toClassic(system)).serialize(message).get().length;
  }

  /**
   * {@code streams} streams of {@code shards} shards with 128-character names, replicas 0, 1, 2; the first is a
   * cache, the second has its own retention and segment size.
   */
  private static AssignmentTable table(long version, int streams, int shards) {
    Map<String, Integer> counts = new HashMap<>();
    Map<String, StreamConfig> configs = new HashMap<>();
    TreeMap<ShardId, ShardAssignment> assignments = new TreeMap<>();
    for (int s = 0; s < streams; s++) {
      String name = String.format("%0128d", s);
      counts.put(name, shards);
      if (s == 0) {
        configs.put(name, new StreamConfig(null, null, null, new CacheConfig(60_000)));
      } else if (s == 1) {
        configs.put(name, new StreamConfig(3_600_000L, 1L << 30, 1L << 20));
      }
      UUID incarnation = new UUID(s, version);
      for (int i = 0; i < shards; i++) {
        assignments.put(new ShardId(name, i), new ShardAssignment(new ShardId(name, i), List.of(0, 1, 2), List.of(),
            i % 3, 1, incarnation));
      }
    }
    return new AssignmentTable(version, new TreeMap<>(), counts, assignments, configs);
  }
}
