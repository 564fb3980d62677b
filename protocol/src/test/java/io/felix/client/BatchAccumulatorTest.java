package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.felix.protocol.client.Record;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The accumulator with a real sender thread: what it hands over, and when. */
class BatchAccumulatorTest {
  private static final Record RECORD = Record.newBuilder().setValue(ByteString.copyFromUtf8("v")).build();

  private static void append(BatchAccumulator accumulator) {
    accumulator.append("s", 0, RECORD, 10, new CompletableFuture<>(), System.nanoTime());
  }

  @Test
  void aShardWaitingForAnAnswerKeepsFillingOneBatchPastItsLinger() throws Exception {
    BatchAccumulator accumulator = new BatchAccumulator(ClientSettings.builder("127.0.0.1:1")
        .linger(Duration.ofMillis(1)).build()); // one batch in flight per shard (the default)
    BlockingQueue<ProduceBatch> sent = new LinkedBlockingQueue<>();
    Thread sender = new Thread(() -> {
      try {
        while (true) {
          sent.addAll(accumulator.awaitSendable());
        }
      } catch (InterruptedException stop) {
        Thread.currentThread().interrupt();
      }
    });
    sender.setDaemon(true);
    sender.start();
    try {
      append(accumulator);
      ProduceBatch first = sent.poll(5, TimeUnit.SECONDS);
      assertEquals(1, first.size(), "sent once its linger was over");
      for (int i = 0; i < 3; i++) { // each 10 linger intervals apart while the first batch is unanswered
        append(accumulator);
        Thread.sleep(10);
      }
      assertEquals(null, sent.poll(), "nothing more is sent while the shard's one batch is in flight");
      accumulator.done(first);
      ProduceBatch second = sent.poll(5, TimeUnit.SECONDS);
      assertEquals(3, second.size(), "the three records waited in one batch, not one batch per linger");
      assertEquals(List.of(), List.copyOf(sent));
    } finally {
      sender.interrupt();
    }
  }
}
