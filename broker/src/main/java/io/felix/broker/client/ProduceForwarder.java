package io.felix.broker.client;

import io.felix.broker.transport.ReplicationSettings;

import io.felix.broker.transport.ReplicationTransport;

import io.felix.broker.metrics.BrokerMetrics;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.ForwardProduce;
import io.felix.protocol.replication.ForwardCacheRead;
import io.felix.protocol.replication.ForwardGroupRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.MultiGetRequest;
import io.felix.protocol.replication.ForwardProduceResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Plain mode, sending side: hands a produce for a shard led elsewhere to its leader over the replication
 * connection and completes with the leader's answer (and likewise cache reads, and consumer-group requests to the
 * group's coordinator). The leader applies the request's own acks, so the answer
 * means what it would mean had the client sent it there. If no answer comes within the request's timeout plus a
 * grace, the client gets TIMEOUT (outcome unknown: the leader may have appended it). Thread-safe.
 */
public final class ProduceForwarder {
  private final ActorSystem<?> system;
  private final ReplicationTransport transport;
  private final ReplicationSettings settings;
  private final Map<Long, CompletableFuture<Response>> pending = new ConcurrentHashMap<>();
  private final AtomicLong nextId = new AtomicLong();
  private final AtomicLong forwardedBatches = new AtomicLong();
  private final AtomicLong forwardedBytes = new AtomicLong();

  public ProduceForwarder(ActorSystem<?> system, ReplicationTransport transport, ReplicationSettings settings) {
    this.system = system;
    this.transport = transport;
    this.settings = settings;
  }

  /** @param principal the client's, which the leader authorizes the batch for */
  public CompletableFuture<Response> forward(int leader, ProduceRequest request, String principal, Duration grace) {
    long id = nextId.incrementAndGet();
    ReplicationFrame frame = ReplicationFrame.newBuilder()
        .setForwardProduce(ForwardProduce.newBuilder().setForwardId(id).setRequest(request)
            .setPrincipal(principal)).build();
    Duration timeout = (request.getTimeoutMs() > 0 ? Duration.ofMillis(request.getTimeoutMs())
        : settings.produceTimeout()).plus(grace);
    return exchange(leader, id, frame, timeout,
        () -> Errors.response(0, Errors.notAppended(ErrorCode.TIMEOUT, "cannot reach the leader, broker " + leader
            + ", of " + request.getStream() + "/" + request.getShard() + " to forward the batch; not appended")),
        () -> Errors.response(0, Errors.of(ErrorCode.TIMEOUT, "no answer from the leader, broker " + leader
            + ", within " + timeout.toMillis() + " ms for a forwarded batch; it may or may not have been appended")),
        () -> {
          forwardedBatches.incrementAndGet();
          forwardedBytes.addAndGet(request.getRecords().size());
          BrokerMetrics.of(system).batchForwarded(leader, request.getRecords().size());
        });
  }

  /**
   * Plain mode: hands a cache read of keys of one shard to its leader; completes with the leader's answer, or TIMEOUT
   * (retriable; a read changes nothing) when it cannot be sent or none comes within the produce timeout plus grace.
   */
  public CompletableFuture<Response> forwardCacheRead(int leader, int shard, MultiGetRequest request,
      Duration grace) {
    long id = nextId.incrementAndGet();
    ReplicationFrame frame = ReplicationFrame.newBuilder().setForwardCacheRead(ForwardCacheRead.newBuilder()
        .setForwardId(id).setRequest(request).setShard(shard)).build();
    Duration timeout = settings.produceTimeout().plus(grace);
    return exchange(leader, id, frame, timeout,
        () -> Errors.response(0, Errors.of(ErrorCode.TIMEOUT, "cannot reach the leader, broker " + leader
            + ", of " + request.getCache() + "/" + shard + " to forward the read")),
        () -> Errors.response(0, Errors.of(ErrorCode.TIMEOUT, "no answer from the leader, broker " + leader
            + ", within " + timeout.toMillis() + " ms for a forwarded cache read")),
        () -> { });
  }

  /**
   * Plain mode: hands a consumer-group request to the group's coordinator; completes with its answer, or
   * NOT_COORDINATOR (the client retries) when it cannot be sent or none comes within the produce timeout plus grace.
   *
   * @param principal the client's, which the coordinator authorizes the request for
   */
  public CompletableFuture<Response> forwardGroupRequest(int coordinator, Request request, String principal,
      Duration grace) {
    long id = nextId.incrementAndGet();
    ReplicationFrame frame = ReplicationFrame.newBuilder().setForwardGroupRequest(ForwardGroupRequest.newBuilder()
        .setForwardId(id).setRequest(request.toBuilder().setForwardIfNotCoordinator(false))
        .setPrincipal(principal)).build();
    Duration timeout = settings.produceTimeout().plus(grace);
    return exchange(coordinator, id, frame, timeout,
        () -> Errors.response(0, Errors.of(ErrorCode.NOT_COORDINATOR, "cannot reach the coordinator, broker "
            + coordinator + ", to forward a " + request.getBodyCase() + " request; retry")),
        () -> Errors.response(0, Errors.of(ErrorCode.NOT_COORDINATOR, "no answer from the coordinator, broker "
            + coordinator + ", within " + timeout.toMillis() + " ms for a forwarded " + request.getBodyCase()
            + " request; retry")),
        () -> { });
  }

  /**
   * Sends {@code frame} (carrying forward id {@code id}) to {@code broker} and completes with the answer that comes
   * back under that id; with {@code unsent} when it cannot be sent, {@code late} when no answer comes within
   * {@code timeout}. {@code onSent} runs once the frame is queued.
   */
  private CompletableFuture<Response> exchange(int broker, long id, ReplicationFrame frame, Duration timeout,
      Supplier<Response> unsent, Supplier<Response> late, Runnable onSent) {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    pending.put(id, reply);
    if (!transport.send(broker, frame)) {
      pending.remove(id);
      reply.complete(unsent.get());
      return reply;
    }
    onSent.run();
    system.scheduler().scheduleOnce(timeout, () -> {
      CompletableFuture<Response> unanswered = pending.remove(id);
      if (unanswered != null) {
        unanswered.complete(late.get());
      }
    }, system.executionContext());
    return reply;
  }

  /** An answer from a leader; one for a request that already timed out is dropped. */
  public void onResult(ForwardProduceResult result) {
    CompletableFuture<Response> reply = pending.remove(result.getForwardId());
    if (reply != null) {
      reply.complete(result.getResponse());
    }
  }

  public long forwardedBatches() {
    return forwardedBatches.get();
  }

  public long forwardedBytes() {
    return forwardedBytes.get();
  }
}
