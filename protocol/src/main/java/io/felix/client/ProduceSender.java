package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that turns closed batches into ProduceRequests: to the shard's leader (cluster mode) or to the
 * plain-mode broker, and handles each answer.
 *
 * <p>Retry rule. A failed batch is retried (after backoff doubling from retryBackoff, within retries and the
 * delivery timeout) when the error is retriable AND the batch certainly was not stored: NOT_LEADER, no known
 * leader, a connection that failed before the request was written, or a broker error with not_appended set.
 * Errors that leave the outcome unknown (TIMEOUT, NOT_ENOUGH_REPLICAS without not_appended, a connection lost
 * or no answer after the request was written) are retried only with retryAmbiguousErrors, since the first
 * attempt may have been stored and a retry would then store the batch twice. Otherwise the batch's futures
 * fail with the error, whose {@link FelixException#notAppended()} tells the caller whether it may exist.
 *
 * <p>Idempotence (the default): every batch carries the producer id (asked once, {@link ProducerIdentity}) and
 * its producer epoch and first sequence number in its shard, fixed at its first send, and the leader stores it
 * once. So every retriable failure is retried, ambiguous ones included, with the same numbers: a batch the leader
 * (or an earlier leader) already stored is answered with its original offset. OUT_OF_ORDER_SEQUENCE (an earlier
 * batch of the shard is being retried) is retried too, behind it. A numbered batch that fails for good makes its
 * shard start a new producer epoch ({@link BatchAccumulator#abandonSequence}).
 *
 * <p>NOT_LEADER. The answer names the leader with its epoch ({@link MetadataCache#notLeader}). A leader of a newer
 * epoch than the client knew is tried at once: epochs only grow, so such immediate retries are bounded by the
 * leadership changes that really happen. Any other NOT_LEADER (no leader named, or one the client already knew,
 * as when two brokers disagree) waits the growing backoff while metadata is re-read, so a client never
 * ping-pongs between brokers at full speed; it converges as soon as some broker has the newer epoch.
 *
 * <p>A silent leader. A leader that stops answering (stopped, cut off) leaves its requests unanswered on an open
 * connection. In cluster mode with idempotence {@link #watchLeaders} re-reads metadata once a request is overdue
 * and re-sends a shard's batches in flight to a leader of a newer epoch as soon as one is known, in sequence
 * order and with the same numbers; each send has a number and only the awaited send's answer is taken, so the
 * old leader's late answers are ignored ({@link LeaderWatch}).
 */
final class ProduceSender implements Runnable {
  private static final Logger log = LoggerFactory.getLogger(ProduceSender.class);

  private final ClientSettings settings;
  private final BatchAccumulator accumulator;
  private final MetadataCache metadata;
  private final BrokerConnections connections;
  private final ProducerIdentity identity;
  private final AtomicLong retries = new AtomicLong();
  private final LeaderWatch watch;

  /** How often {@link #watchLeaders} looks at the batches in flight. */
  static final Duration WATCH_TICK = Duration.ofMillis(100);

  ProduceSender(ClientSettings settings, BatchAccumulator accumulator, MetadataCache metadata,
      BrokerConnections connections) {
    this.settings = settings;
    this.accumulator = accumulator;
    this.metadata = metadata;
    this.connections = connections;
    this.identity = new ProducerIdentity(settings, connections);
    this.watch = new LeaderWatch(settings.leaderSilenceTimeout(), System::nanoTime);
  }

  long retries() {
    return retries.get();
  }

  @Override
  public void run() {
    try {
      while (true) {
        List<ProduceBatch> batches = accumulator.awaitSendable();
        if (batches.isEmpty()) {
          return;
        }
        for (ProduceBatch b : batches) {
          send(b);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      log.error("producer sender stopped by an unexpected error; pending records fail", e);
      for (ProduceBatch b : accumulator.abandonUnsent()) {
        b.failed(FelixException.clientClosed("producer sender failed: " + e));
      }
    }
  }

  private void send(ProduceBatch batch) {
    // counted even when no leader is known, so the backoff grows while a failover is under way
    batch.attempts++;
    HostPort target = settings.mode() == ClientMode.PLAIN
        ? metadata.plainTarget()
        : metadata.view().leaderAddress(batch.stream, batch.shard);
    if (target == null) {
      metadata.refresh(List.of(batch.stream));
      failedAttempt(batch, null,
          FelixException.noLeader("no known leader for " + batch.stream + "/" + batch.shard), false, false);
      return;
    }
    if (metadata.isStale()) {
      metadata.refresh(List.of(batch.stream));
    }
    ClusterView.Leader leader = settings.mode() == ClientMode.PLAIN
        ? ClusterView.Leader.UNKNOWN : metadata.view().leader(batch.stream, batch.shard);
    int sendNumber = accumulator.sending(batch, leader, target, watch.now());
    ProduceRequest.Builder produce = ProduceRequest.newBuilder()
        .setStream(batch.stream)
        .setShard(batch.shard)
        .setRecords(batch.encoded())
        .setAcks(settings.acks())
        .setTimeoutMs((int) settings.ackTimeout().toMillis())
        // Plain mode: the one broker we talk to forwards batches for shards it does not lead (felix_client.proto).
        .setForwardIfNotLeader(settings.mode() == ClientMode.PLAIN);
    if (!batch.hasSequence()) {
      send(batch, sendNumber, target, produce);
      return;
    }
    identity.producerId(target).whenComplete((producerId, error) -> {
      if (error != null) {
        answered(batch, sendNumber, target, null, error);
        return;
      }
      send(batch, sendNumber, target, produce.setHasProducer(true).setProducerId(producerId)
          .setProducerEpoch(batch.producerEpoch).setBaseSequence(batch.baseSequence));
    });
  }

  private void send(ProduceBatch batch, int sendNumber, HostPort target, ProduceRequest.Builder produce) {
    connections.get(target)
        .thenCompose(c -> c.send(Request.newBuilder().setProduce(produce), settings.requestTimeout()))
        .whenComplete((response, error) -> answered(batch, sendNumber, target, response, error));
  }

  /**
   * Runs every {@link #WATCH_TICK} (cluster mode with idempotence): re-sends the batches in flight whose shard has
   * a newer leader epoch than they were sent under, and re-reads metadata while any is overdue ({@link LeaderWatch}).
   */
  void watchLeaders() {
    try {
      watchLeadersOnce();
    } catch (RuntimeException e) {
      // a scheduled task that throws is never run again: keep watching
      log.warn("watching the leaders of batches in flight failed; watching on", e);
    }
  }

  private void watchLeadersOnce() {
    Set<HostPort> silent = new HashSet<>();
    Set<String> overdueStreams = new HashSet<>();
    Set<BatchAccumulator.ShardKey> moved = new HashSet<>();
    ClusterView view = metadata.view();
    int resentBatches = 0;
    String firstChange = null;
    for (BatchAccumulator.AwaitedSend sent : accumulator.awaitedSends()) {
      BatchAccumulator.ShardKey key = new BatchAccumulator.ShardKey(sent.batch().stream, sent.batch().shard);
      ClusterView.Leader known = view.leader(key.stream(), key.shard());
      switch (watch.verdict(sent.sentTo(), sent.sentAtNanos(), known)) {
        case RESEND -> {
          if (moved.add(key)) {
            List<ProduceBatch> resent = accumulator.resendAwaited(key.stream(), key.shard(), watch.now());
            retries.addAndGet(resent.size());
            resentBatches += resent.size();
            String change = key.stream() + "/" + key.shard() + ": leader is broker " + known.broker() + " at epoch "
                + known.epoch() + " now, not broker " + sent.sentTo().broker() + " at epoch "
                + sent.sentTo().epoch();
            firstChange = firstChange == null ? change : firstChange;
            log.debug("{}; re-sending its {} batch(es) in flight there with the same sequence numbers", change,
                resent.size());
          }
        }
        case OVERDUE -> {
          silent.add(sent.address());
          overdueStreams.add(key.stream());
        }
        case WAIT -> { }
      }
    }
    if (!moved.isEmpty()) {
      // One line per pass: a failover of thousands of shards is one event to the reader, not thousands.
      log.info("re-sending {} batch(es) in flight to {} shard(s) whose leader changed, with the same sequence "
          + "numbers ({}{})", resentBatches, moved.size(), firstChange, moved.size() > 1 ? ", ..." : "");
    }
    if (!silent.isEmpty() && watch.refreshDue()) {
      log.debug("produce requests to {} unanswered for {} ms; re-reading metadata", silent,
          settings.leaderSilenceTimeout().toMillis());
      metadata.leadersSilent(silent, overdueStreams);
    }
  }

  private void answered(ProduceBatch batch, int sendNumber, HostPort target, Response response, Throwable error) {
    if (!accumulator.takeAnswer(batch, sendNumber)) {
      log.debug("late answer from {} for {}/{} ignored: the batch was re-sent to a newer leader", target,
          batch.stream, batch.shard);
      return;
    }
    if (error != null) {
      FelixException cause = FelixException.from(error);
      if (cause.kind() == FelixException.Kind.CONNECTION_FAILED) {
        metadata.connectionFailed(target);
        metadata.refresh(List.of(batch.stream));
      }
      failedAttempt(batch, target, cause, false, false);
      return;
    }
    metadata.answeredBy(target);
    if (Errors.isError(response)) {
      Error e = response.getError();
      boolean unknown = e.getCode() == ErrorCode.UNKNOWN_STREAM || e.getCode() == ErrorCode.UNKNOWN_SHARD;
      if (unknown) {
        metadata.refresh(List.of(batch.stream)); // deleted: forget its leaders before it may be created again
      }
      // A broker whose assignment table is older than the one this client read the stream from has not learned of
      // the stream yet (tables reach brokers at their own pace): worth another attempt, as Kafka retries
      // UNKNOWN_TOPIC_OR_PARTITION. From a table as new as ours or newer, the stream is gone: fail at once.
      boolean lagging = unknown && e.getNotAppended()
          && e.getAssignmentVersion() < metadata.view().assignmentVersion();
      boolean newerLeader = e.getCode() == ErrorCode.NOT_LEADER
          && metadata.notLeader(batch.stream, batch.shard, e) == MetadataCache.HintOutcome.NEWER_LEADER
          && settings.mode() == ClientMode.CLUSTER;
      failedAttempt(batch, target, FelixException.broker(e), newerLeader, lagging);
      return;
    }
    if (!response.hasProduce()) {
      failedAttempt(batch, target, FelixException.broker(Errors.of(ErrorCode.INVALID_REQUEST,
          target + " answered a produce without a produce result")), false, false);
      return;
    }
    batch.succeeded(response.getProduce().getBaseOffset());
    accumulator.done(batch);
  }

  /**
   * @param atOnce retry without backoff: the answer named a leader of a newer epoch (see the class comment)
   * @param brokerLags retry although the error is not retriable: the broker's table lags the client's
   */
  private void failedAttempt(ProduceBatch batch, HostPort target, FelixException cause, boolean atOnce,
      boolean brokerLags) {
    long now = System.nanoTime();
    // A numbered batch is stored once however often it is sent (see the class comment).
    boolean safe = cause.notAppended() || settings.retryAmbiguousErrors() || batch.hasSequence();
    long retryAt = atOnce ? now : now + settings.backoffNanos(batch.attempts);
    boolean retry = (cause.retriable() || brokerLags) && safe && !accumulator.isClosing()
        && batch.attempts <= settings.retries() && retryAt < batch.deadlineNanos;
    if (retry) {
      retries.incrementAndGet();
      log.debug("retrying {}/{} (attempt {}) after: {}", batch.stream, batch.shard, batch.attempts,
          cause.getMessage());
      accumulator.retryLater(batch, retryAt);
      return;
    }
    String where = batch.stream + "/" + batch.shard + (target == null ? "" : " via " + target);
    accumulator.abandonSequence(batch);
    batch.failed(cause.withContext("produce to " + where + " failed after " + batch.attempts + " attempt(s)"));
    accumulator.done(batch);
  }
}
