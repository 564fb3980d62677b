package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.ShardId;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * One batched question's answers: all at once when every replica answered in time; what arrived at the timeout, and,
 * when late answers are wanted, the late ones after, under the same request id.
 */
class StatusCollectorTest {

  private static final ActorTestKit kit = ActorTestKit.create("StatusCollectorTest");
  private static final Duration TIMEOUT = Duration.ofMillis(300);
  private static final ShardId PROMPT = new ShardId("s", 0);
  private static final ShardId LATE = new ShardId("s", 1);

  private final TestProbe<ShardReplica.Command> prompt = kit.createTestProbe();
  private final TestProbe<ShardReplica.Command> late = kit.createTestProbe();
  private final TestProbe<ReplicaStatuses> asker = kit.createTestProbe();

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void aReplicaThatAnswersAfterTheTimeoutIsSentOnLaterUnderTheSameRequestId() {
    ask(TIMEOUT.multipliedBy(4));
    answer(prompt, PROMPT);
    ReplicaStatuses first = asker.expectMessageClass(ReplicaStatuses.class, TIMEOUT.multipliedBy(10));
    assertEquals(List.of(ReplicaStatus.notHosted(PROMPT, 5)), first.statuses(), "what arrived by the timeout");

    answer(late, LATE);
    ReplicaStatuses second = asker.expectMessageClass(ReplicaStatuses.class, TIMEOUT.multipliedBy(10));
    assertEquals(first.requestId(), second.requestId());
    assertEquals(List.of(ReplicaStatus.notHosted(LATE, 5)), second.statuses(), "the late answer");
    asker.expectNoMessage(TIMEOUT.multipliedBy(2));
  }

  @Test
  void withoutLateAnswersTheCollectorAnswersOnceAtTheTimeout() {
    ask(Duration.ZERO);
    answer(prompt, PROMPT);
    assertEquals(List.of(ReplicaStatus.notHosted(PROMPT, 5)),
        asker.expectMessageClass(ReplicaStatuses.class, TIMEOUT.multipliedBy(10)).statuses());
    answer(late, LATE);
    asker.expectNoMessage(TIMEOUT.multipliedBy(2));
  }

  private void ask(Duration lateFor) {
    Map<ShardId, ActorRef<ShardReplica.Command>> asked = Map.of(PROMPT, prompt.ref(), LATE, late.ref());
    kit.spawn(StatusCollector.create(9, 5, 3, asked, (shard, replyTo) -> new ShardReplica.Describe(replyTo), List.of(),
        TIMEOUT, lateFor, asker.ref()));
  }

  /** The replica behind {@code probe} answers its question (a describe) with a status of {@code shard}. */
  private static void answer(TestProbe<ShardReplica.Command> probe, ShardId shard) {
    ShardReplica.Describe asked = probe.expectMessageClass(ShardReplica.Describe.class);
    asked.replyTo().tell(ReplicaStatus.notHosted(shard, 5));
  }
}
