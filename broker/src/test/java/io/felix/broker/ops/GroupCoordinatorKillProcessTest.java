package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.felix.broker.group.OffsetsStore;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.GroupConsumer;
import io.felix.client.GroupConsumerOptions;
import io.felix.client.GroupRecord;
import io.felix.client.RecordMetadata;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import io.felix.protocol.client.Acks;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Committed offsets survive the SIGKILL of their coordinator's broker process: a group's coordinator is the leader
 * of the group's shard of {@value OffsetsStore#STREAM}, a commit is acknowledged once stored on a majority of that
 * shard's replicas, and when the leader's process dies without a word the shard fails over to a surviving replica,
 * whose broker rebuilds the group's offsets from its log. The next member of the group must start every shard
 * exactly where the last commit said, while the killed broker is still down (ConsumerGroupClusterTest checks the
 * same for a graceful stop in one JVM; a process killed with SIGKILL says goodbye to no one).
 */
@Tag("process")
@ExtendWith(SharedLocalCluster.class)
@Timeout(value = 8, unit = TimeUnit.MINUTES) // a loaded 2-core machine: brokers start slowly; hung ones fail the test
class GroupCoordinatorKillProcessTest {

  private static final String STREAM = "audited";
  private static final String GROUP = "audit";
  private static final int SHARDS = 3;
  private static final int COMMITTED_RECORDS = 90;
  private static final int LATER_RECORDS = 30;
  /** How long after the SIGKILL the next member may take to have read from every shard. */
  private static final Duration RESUME_BOUND = Duration.ofSeconds(60);
  private static final GroupConsumerOptions OPTIONS = GroupConsumerOptions.DEFAULTS.withMaxWait(Duration.ofMillis(200));

  @Test
  void aNewMemberStartsEveryShardAtItsCommittedOffsetWhileTheCoordinatorsBrokerIsDead(LocalCluster launcher)
      throws Exception {
    AdminApi admin = new AdminApi(launcher.adminPort(0));
    admin.createStream(STREAM, SHARDS, 3);
    admin.awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));
    admin.awaitInSync(STREAM, Duration.ofSeconds(60));
    Map<Integer, Long> produced = produce(launcher.bootstrap(), 0, COMMITTED_RECORDS);

    Map<Integer, Long> committed = readAllAndCommit(launcher.bootstrap());
    assertEquals(produced, committed, "the first member committed past the last record of every shard");
    // Records after the commit: a member starting at the committed offset reads these first, one starting from
    // scratch (offsets lost) reads offset 0 first, so where the next member starts is visible in what it reads.
    produce(launcher.bootstrap(), COMMITTED_RECORDS, LATER_RECORDS);
    awaitGroupCommitted(admin, committed, Duration.ofSeconds(30));

    // The store is created by the group's first request, so its followers may have joined only moments ago. One
    // that has not yet fetched from its leader cannot vouch for the shard in a failover, which would then wait
    // for the killed leader to come back (FailoverRounds). This test is about the offsets surviving the kill of
    // a settled store, so it waits for every replica of the store to be in sync first.
    int offsetsShards = admin.streamDetail(OffsetsStore.STREAM).get("shards").asInt();
    admin.awaitLed(OffsetsStore.STREAM, offsetsShards, -1, Duration.ofSeconds(60));
    admin.awaitInSync(OffsetsStore.STREAM, Duration.ofSeconds(60));
    int coordinator = admin.shards(OffsetsStore.STREAM).get(OffsetsStore.shardOf(GROUP, offsetsShards)).leader();
    List<Integer> live = IntStream.range(0, 3).filter(b -> b != coordinator).boxed().toList();

    long pid = launcher.pid(coordinator);
    try {
      launcher.killAndKeepDown(coordinator);
      long killedAt = System.nanoTime();
      ProcessHandle.of(pid).ifPresent(p -> p.onExit().orTimeout(10, TimeUnit.SECONDS).join());

      String liveBootstrap = live.stream().map(b -> "127.0.0.1:" + launcher.clientPort(b))
          .collect(Collectors.joining(","));
      Map<Integer, Long> firstRead = firstOffsetsReadByANewMember(liveBootstrap);
      long resumedMs = (System.nanoTime() - killedAt) / 1_000_000;
      assertEquals(committed, firstRead, "a new member, within " + RESUME_BOUND + " of the SIGKILL of broker "
          + coordinator + " (the coordinator), starts every shard at the offset committed before it");

      // The new coordinator (built by the member's requests) answers the admin API, asked through a live broker.
      awaitGroupCommitted(new AdminApi(launcher.adminPort(live.get(1))), committed, Duration.ofSeconds(30));
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the killed broker's process");
      assertEquals(pid, launcher.pid(coordinator), "the killed broker was not started again");
      assertEquals(-1, launcher.admin(coordinator).status("/health"), "nothing answers on the killed broker");
      System.out.printf("group %s committed %s; its coordinator, broker %d, SIGKILLed; a new member read from every"
          + " shard at its committed offset %d ms later%n", GROUP, committed, coordinator, resumedMs);
    } finally {
      launcher.start(coordinator); // the shared cluster whole again for the next test
    }
  }

  /** Produces {@code count} records round-robin over the shards with acks all; the next offset of each shard. */
  private static Map<Integer, Long> produce(String bootstrap, int from, int count) throws Exception {
    List<CompletableFuture<RecordMetadata>> acked = new ArrayList<>();
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).acks(Acks.ALL)
        .linger(Duration.ofMillis(1)).retries(50).retryBackoffMax(Duration.ofMillis(200))
        .requestTimeout(Duration.ofSeconds(10)).ackTimeout(Duration.ofSeconds(5))
        .deliveryTimeout(Duration.ofSeconds(60)).build())) {
      for (int i = from; i < from + count; i++) {
        acked.add(client.produce(STREAM, i % SHARDS, ("k" + i).getBytes(StandardCharsets.UTF_8),
            ("v" + i).getBytes(StandardCharsets.UTF_8), List.of()));
      }
      CompletableFuture.allOf(acked.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }
    Map<Integer, Long> next = new TreeMap<>();
    acked.forEach(f -> next.merge(f.join().shard(), f.join().offset() + 1, Math::max));
    return next;
  }

  /** A member of the group reads every committed record, commits, and leaves; the next offset it read per shard. */
  private static Map<Integer, Long> readAllAndCommit(String bootstrap) {
    Map<Integer, Long> read = new TreeMap<>();
    try (FelixClient client = consumerClient(bootstrap); GroupConsumer first = new GroupConsumer(client, OPTIONS)) {
      first.subscribe(STREAM, GROUP);
      int records = 0;
      // The group's first request creates the offsets store, so the first join takes a while.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (records < COMMITTED_RECORDS && System.nanoTime() < deadline) {
        for (GroupRecord r : first.poll(Duration.ofMillis(500))) {
          records++;
          read.merge(r.shard(), r.offset() + 1, Math::max);
        }
      }
      assertEquals(COMMITTED_RECORDS, records, "records the first member read");
      first.commitSync();
    }
    return read;
  }

  /** The offset of the first record a new member of the group reads from each shard, within the bound. */
  private static Map<Integer, Long> firstOffsetsReadByANewMember(String bootstrap) {
    Map<Integer, Long> firstRead = new TreeMap<>();
    try (FelixClient client = consumerClient(bootstrap); GroupConsumer next = new GroupConsumer(client, OPTIONS)) {
      next.subscribe(STREAM, GROUP);
      long deadline = System.nanoTime() + RESUME_BOUND.toNanos();
      while (firstRead.size() < SHARDS && System.nanoTime() < deadline) {
        for (GroupRecord r : next.poll(Duration.ofMillis(500))) {
          firstRead.putIfAbsent(r.shard(), r.offset());
        }
      }
    } // closed without a commit: the group's committed offsets stay those of the first member
    return firstRead;
  }

  private static FelixClient consumerClient(String bootstrap) {
    return new FelixClient(ClientSettings.builder(bootstrap).build());
  }

  /**
   * Polls GET /v1/groups/{group} on this broker until it shows exactly these committed offsets (the broker may
   * still be learning who coordinates the group), then asserts what it showed last.
   */
  private static void awaitGroupCommitted(AdminApi admin, Map<Integer, Long> committed, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    Map<Integer, Long> shown = admin.groupCommitted(GROUP);
    while (!shown.equals(committed) && System.nanoTime() < deadline) {
      Thread.sleep(200);
      shown = admin.groupCommitted(GROUP);
    }
    assertEquals(committed, shown, "committed offsets per shard in GET /v1/groups/" + GROUP);
  }
}
