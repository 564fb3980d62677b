package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.client.ProducerIdSource;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.testkit.typed.javadsl.ActorTestKit;
import org.apache.pekko.actor.testkit.typed.javadsl.TestProbe;
import org.apache.pekko.actor.typed.ActorRef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A broker's producer ids come from a block it holds before a producer asks: one asked for at start, a spare asked
 * for once half of the current block is handed out, and an unanswered ask asked again.
 */
class ProducerIdIssuerTest {

  private static final ActorTestKit kit = ActorTestKit.create("ProducerIdIssuerTest");
  private static final Duration ASK_TIMEOUT = Duration.ofMillis(300);
  private static final int HALF = ProducerIdBlock.SIZE / 2;

  private final TestProbe<PlacementController.Command> singleton = kit.createTestProbe();

  @AfterAll
  static void stop() {
    kit.shutdownTestKit();
  }

  @Test
  void aBrokerAsksForItsFirstBlockAtStartAndForASpareOnceHalfOfTheCurrentOneIsHandedOut() throws Exception {
    ProducerIdSource ids = ProducerIdIssuer.source(kit.spawn(ProducerIdIssuer.create(7, singleton.ref(), ASK_TIMEOUT)));
    allocate(7, 5_000); // asked at start, before any producer

    for (int i = 0; i < HALF; i++) {
      assertEquals(5_000 + i, next(ids));
    }
    singleton.expectNoMessage(Duration.ofMillis(100));
    assertEquals(5_000 + HALF, next(ids), "below half left: a spare is asked for");
    allocate(7, 9_000);

    for (int i = HALF + 1; i < ProducerIdBlock.SIZE; i++) {
      assertEquals(5_000 + i, next(ids));
    }
    assertEquals(9_000, next(ids), "the current block used up: the spare's first id");
    singleton.expectNoMessage(Duration.ofMillis(100));
  }

  @Test
  void anAskTheSingletonDoesNotAnswerIsAskedAgainAndAProducerWaitingMeanwhileFailsRetriably() throws Exception {
    ActorRef<ProducerIdIssuer.Command> issuer = kit.spawn(ProducerIdIssuer.create(3, singleton.ref(), ASK_TIMEOUT));
    singleton.expectMessageClass(PlacementController.AllocateProducerIds.class); // left unanswered
    CompletableFuture<Long> waiting = ProducerIdIssuer.source(issuer).nextProducerId().toCompletableFuture();

    PlacementController.AllocateProducerIds again = singleton.expectMessageClass(
        PlacementController.AllocateProducerIds.class, ASK_TIMEOUT.plus(ProducerIdIssuer.RETRY_AFTER).multipliedBy(3));
    assertTrue(waiting.isCompletedExceptionally(), "the producer asks its client again");
    again.replyTo().tell(new ProducerIdBlock(2_000, ProducerIdBlock.SIZE));
    assertEquals(2_000, next(ProducerIdIssuer.source(issuer)));
  }

  private static long next(ProducerIdSource ids) throws Exception {
    return ids.nextProducerId().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  private void allocate(int brokerId, long firstId) {
    PlacementController.AllocateProducerIds asked =
        singleton.expectMessageClass(PlacementController.AllocateProducerIds.class);
    assertEquals(brokerId, asked.brokerId());
    asked.replyTo().tell(new ProducerIdBlock(firstId, ProducerIdBlock.SIZE));
  }
}
