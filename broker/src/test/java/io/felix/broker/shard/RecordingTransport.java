package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/** A replication transport that delivers nothing and records every frame a replica sends, in order. */
final class RecordingTransport implements ReplicationTransport {
  record Sent(int toBroker, ReplicationFrame frame) {}

  private final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
  private final AtomicLong frames = new AtomicLong();
  private final AtomicLong bytes = new AtomicLong();

  @Override
  public boolean send(int toBroker, ReplicationFrame frame) {
    frames.incrementAndGet();
    bytes.addAndGet(frame.getSerializedSize());
    sent.add(new Sent(toBroker, frame));
    return true;
  }

  /** The next frame sent, waiting for it (the replica sends from its own thread). */
  Sent next() {
    try {
      Sent s = sent.poll(ReplicaFixture.PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
      assertNotNull(s, "no frame was sent within " + ReplicaFixture.PATIENCE);
      return s;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The next frame, which must be a fetch result for {@code toBroker}. */
  ReplicaFetchResult nextFetchResult(int toBroker) {
    Sent s = next();
    assertEquals(toBroker, s.toBroker());
    assertTrue(s.frame().hasFetchResult(), () -> "expected a fetch result, got " + s.frame());
    return s.frame().getFetchResult();
  }

  /** The next frame, which must be a fetch (or ack) to {@code toBroker}. */
  ReplicaFetch nextFetch(int toBroker) {
    Sent s = next();
    assertEquals(toBroker, s.toBroker());
    assertTrue(s.frame().hasFetch(), () -> "expected a fetch, got " + s.frame());
    return s.frame().getFetch();
  }

  /** Takes every frame sent so far without waiting (call after a round trip to the replica). */
  List<Sent> drain() {
    List<Sent> out = new ArrayList<>();
    sent.drainTo(out);
    return out;
  }

  @Override
  public int boundPort() {
    return 0;
  }

  @Override
  public void updatePeers(Map<Integer, BrokerEndpoint> brokers) {}

  @Override
  public long framesSent() {
    return frames.get();
  }

  @Override
  public long bytesSent() {
    return bytes.get();
  }

  @Override
  public void close() {}
}
