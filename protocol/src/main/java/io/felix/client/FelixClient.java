package io.felix.client;

import com.google.protobuf.ByteString;
import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.FetchResponse;
import io.felix.protocol.client.Header;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The Felix client: asynchronous produce and fetch over plain JDK sockets (no Pekko).
 *
 * <p>Produce: a record goes to the shard given, else the shard its key hashes to ({@link KeyHash}, Kafka's
 * murmur2), else the stream's current sticky shard. Records are batched per shard until the batch reaches
 * batchSizeBytes or has waited linger, then sent as one ProduceRequest; the returned future completes with the
 * record's offset once the batch meets the acks, or fails with a {@link FelixException}. The first produce to a
 * stream blocks up to requestTimeout to read its metadata (like Kafka's max.block.ms). See
 * {@link ProduceSender} for which errors are retried: with the idempotent producer (the default) every retriable
 * failure, each batch stored once; without it, a retry can duplicate only with retryAmbiguousErrors. Records of
 * one shard stay in order (with idempotence up to five batches in flight per shard; without, only with one).
 *
 * <p>Futures complete on the client's I/O threads: callbacks must not block.
 *
 * <p>Thread-safe. {@link #close()} sends what is pending, waits up to requestTimeout, then fails the rest.
 */
public final class FelixClient implements AutoCloseable {
  private final ClientSettings settings;
  private final ScheduledThreadPoolExecutor timer;
  private final BrokerConnections connections;
  private final MetadataCache metadata;
  /** Which broker {@link #anyBroker} names next. */
  private final AtomicInteger brokerTurn = new AtomicInteger();
  private final BatchAccumulator accumulator;
  private final ProduceSender sender;
  private final Thread senderThread;
  private volatile boolean closed;

  public FelixClient(ClientSettings settings) {
    this.settings = settings;
    this.timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "felix-client-timer");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    this.connections = new BrokerConnections(settings, timer);
    this.metadata = new MetadataCache(settings, connections, timer);
    this.accumulator = new BatchAccumulator(settings);
    this.sender = new ProduceSender(settings, accumulator, metadata, connections);
    if (settings.mode() == ClientMode.CLUSTER && settings.idempotence()) {
      long tick = ProduceSender.WATCH_TICK.toNanos();
      timer.scheduleWithFixedDelay(sender::watchLeaders, tick, tick, TimeUnit.NANOSECONDS);
    }
    this.senderThread = new Thread(sender, "felix-client-sender");
    senderThread.setDaemon(true);
    senderThread.start();
  }

  public ClientSettings settings() {
    return settings;
  }

  /** Produce attempts retried so far. */
  public long retries() {
    return sender.retries();
  }

  public CompletableFuture<RecordMetadata> produce(String stream, byte[] key, byte[] value) {
    return produce(stream, -1, key, value, List.of());
  }

  public CompletableFuture<RecordMetadata> produce(String stream, byte[] key, byte[] value, List<Header> headers) {
    return produce(stream, -1, key, value, headers);
  }

  /**
   * @param shard the shard to write to, or -1 to choose by key (or sticky when the key is null or empty)
   */
  public CompletableFuture<RecordMetadata> produce(String stream, int shard, byte[] key, byte[] value,
      List<Header> headers) {
    if (closed) {
      return CompletableFuture.failedFuture(FelixException.clientClosed("the client is closed"));
    }
    if (value == null) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("value must not be null"));
    }
    ClusterView.StreamView view;
    try {
      view = metadata.stream(stream).get(settings.requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return CompletableFuture.failedFuture(
          FelixException.from(e).withContext("cannot produce to " + stream));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(FelixException.clientClosed("interrupted reading metadata"));
    }
    // The record never leaves the client on these paths: certainly not appended.
    if (view.error() != ErrorCode.NONE) {
      return CompletableFuture.failedFuture(FelixException.broker(Errors.notAppended(view.error(),
          "cannot produce to " + stream + ": " + Errors.describe(view.error()))));
    }
    if (view.shardIds().length == 0) {
      return CompletableFuture.failedFuture(FelixException.broker(Errors.notAppended(ErrorCode.UNKNOWN_SHARD,
          "stream " + stream + " has no shards")));
    }
    int target = -1;
    if (shard >= 0) {
      if (!view.hasShard(shard)) {
        return CompletableFuture.failedFuture(FelixException.broker(Errors.of(ErrorCode.UNKNOWN_SHARD,
            "stream " + stream + " has no shard " + shard + "; shards are " + Arrays.toString(view.shardIds()))));
      }
      target = shard;
    } else if (key != null && key.length > 0) {
      target = KeyHash.shardFor(key, view.shardIds());
    }
    Record.Builder record = Record.newBuilder()
        .setValue(ByteString.copyFrom(value))
        .setTimestampMs(System.currentTimeMillis())
        .addAllHeaders(headers);
    if (key != null) {
      record.setKey(ByteString.copyFrom(key));
    }
    Record built = record.build();
    int size = RecordLists.encodedSize(built);
    if (size > settings.maxFrameBytes() - ClientSettings.REQUEST_OVERHEAD_BYTES) {
      return CompletableFuture.failedFuture(new IllegalArgumentException("record of " + size
          + " bytes does not fit in a frame of at most " + settings.maxFrameBytes() + " bytes"));
    }
    CompletableFuture<RecordMetadata> future = new CompletableFuture<>();
    if (target >= 0) {
      accumulator.append(stream, target, built, size, future, System.nanoTime());
    } else {
      accumulator.appendUnkeyed(stream, view.shardIds(), built, size, future, System.nanoTime());
    }
    return future;
  }

  /** The cache {@code name}: asynchronous put, get, getAll and delete (see {@link FelixCache}). */
  public FelixCache cache(String name) {
    return new FelixCache(this, name, settings, metadata);
  }

  /** Sends every record produced before this call at once (ignoring linger) and waits until each is answered. */
  public void flush() {
    List<CompletableFuture<RecordMetadata>> pending = accumulator.pendingFutures();
    accumulator.flushStarted();
    try {
      CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).exceptionally(e -> null).join();
    } finally {
      accumulator.flushEnded();
    }
  }

  /**
   * Metadata for the streams named (every stream when none are), read now from the first broker that answers
   * (bootstrap brokers, then known brokers; in plain mode its broker). The client's own view is updated too.
   */
  public CompletableFuture<MetadataResponse> metadata(String... streams) {
    return metadata.read(Arrays.asList(streams));
  }

  /**
   * Committed records of one shard from {@code offset} on, at most about {@code maxBytes}, waiting up to
   * {@code maxWaitMs} on the broker when there are none yet. Records before {@code offset} in the first batch
   * are skipped. Retried (fetches are idempotent) on NOT_LEADER, TIMEOUT and connection failures, for at most
   * requestTimeout + maxWaitMs in all.
   */
  public CompletableFuture<FetchResult> fetch(String stream, int shard, long offset, int maxBytes, int maxWaitMs) {
    if (closed) {
      return CompletableFuture.failedFuture(FelixException.clientClosed("the client is closed"));
    }
    Request.Builder request = Request.newBuilder().setFetch(FetchRequest.newBuilder()
        .setStream(stream).setShard(shard).setOffset(offset).setMaxBytes(maxBytes).setMaxWaitMs(maxWaitMs)
        .setForwardIfNotLeader(settings.mode() == ClientMode.PLAIN));
    Duration timeout = settings.requestTimeout().plus(Duration.ofMillis(maxWaitMs));
    return sendRetried(stream, shard, settings.mode() == ClientMode.PLAIN, request, timeout,
        "fetch " + stream + "/" + shard + "@" + offset)
        .thenApply(response -> decode(stream, shard, offset, response.getFetch()));
  }

  /**
   * As {@link #fetch(String, int, long, int, int)}, but an offset outside the log (below its start after retention,
   * or beyond its end) is reset as {@code reset} says and fetched once more from there; the records returned say
   * where they start. With {@link OffsetReset#NONE} the fetch fails with {@link OffsetOutOfRangeException}.
   */
  public CompletableFuture<FetchResult> fetch(String stream, int shard, long offset, int maxBytes, int maxWaitMs,
      OffsetReset reset) {
    return fetch(stream, shard, offset, maxBytes, maxWaitMs).exceptionallyCompose(error -> {
      if (reset == OffsetReset.NONE || !(FelixException.from(error) instanceof OffsetOutOfRangeException range)) {
        return CompletableFuture.failedFuture(error);
      }
      long from = reset == OffsetReset.EARLIEST ? range.logStartOffset() : range.commitOffset();
      return fetch(stream, shard, from, maxBytes, maxWaitMs);
    });
  }

  /**
   * One idempotent read of a shard (a fetch, a cache read): sent to the shard's leader, or with {@code plain} to the
   * plain-mode broker, and retried on retriable failures (a NOT_LEADER hint applied, metadata re-read) with the
   * settings' backoff, for at most {@code timeout} in all. Completes with the successful answer, or fails with the
   * last failure, {@code context} added.
   */
  CompletableFuture<Response> sendRetried(String stream, int shard, boolean plain, Request.Builder request,
      Duration timeout, String context) {
    return sendRetried(stream, shard, plain ? this::plainBroker : () -> leaderOf(stream, shard), request, timeout,
        context);
  }

  /** As above, to the broker {@code target} names for each attempt. */
  CompletableFuture<Response> sendRetried(String stream, int shard, Supplier<CompletableFuture<HostPort>> target,
      Request.Builder request, Duration timeout, String context) {
    CompletableFuture<Response> result = new CompletableFuture<>();
    attempt(stream, shard, target, request, timeout, context, 0, System.nanoTime() + timeout.toNanos(), result);
    return result;
  }

  private CompletableFuture<HostPort> plainBroker() {
    return CompletableFuture.completedFuture(metadata.plainTarget());
  }

  private CompletableFuture<HostPort> leaderOf(String stream, int shard) {
    return metadata.stream(stream).thenApply(v -> {
      HostPort leader = metadata.view().leaderAddress(stream, shard);
      if (leader == null) {
        throw FelixException.noLeader("no known leader for " + stream + "/" + shard);
      }
      return leader;
    });
  }

  /** The next broker in turn that the metadata of {@code stream} names (the plain-mode broker in plain mode). */
  CompletableFuture<HostPort> anyBroker(String stream) {
    if (settings.mode() == ClientMode.PLAIN) {
      return plainBroker();
    }
    return metadata.stream(stream).thenApply(v -> {
      HostPort broker = metadata.view().brokerByTurn(brokerTurn.getAndIncrement());
      return broker != null ? broker : metadata.plainTarget();
    });
  }

  private void attempt(String stream, int shard, Supplier<CompletableFuture<HostPort>> targets,
      Request.Builder request, Duration timeout, String context, int attempt, long deadlineNanos,
      CompletableFuture<Response> result) {
    CompletableFuture<HostPort> target = targets.get();
    target.thenCompose(t -> connections.get(t).thenCompose(c -> c.send(request.clone(), timeout))
            .whenComplete((r, e) -> {
              if (e == null) {
                metadata.answeredBy(t);
              } else if (FelixException.from(e).kind() == FelixException.Kind.CONNECTION_FAILED) {
                metadata.connectionFailed(t);
              }
            }))
        .whenComplete((response, error) -> {
          FelixException failure = error != null ? FelixException.from(error)
              : Errors.isError(response) ? FelixException.broker(response.getError()) : null;
          if (failure == null) {
            result.complete(response);
            return;
          }
          if (failure.code() == ErrorCode.NOT_LEADER && shard >= 0) {
            metadata.notLeader(stream, shard, response.getError()); // applies the hint and re-reads metadata
          } else if (failure.retriable()) {
            metadata.refresh(List.of(stream));
          }
          long backoff = settings.backoffNanos(attempt + 1);
          if (failure.retriable() && attempt < settings.retries() && !closed
              && System.nanoTime() + backoff < deadlineNanos) {
            timer.schedule(() -> attempt(stream, shard, targets, request, timeout, context, attempt + 1,
                deadlineNanos, result), backoff, TimeUnit.NANOSECONDS);
          } else {
            result.completeExceptionally(failure.withContext(context));
          }
        });
  }

  /**
   * One request to the broker at {@code target}, unretried: for the consumer groups' requests, which go to a group's
   * coordinator ({@link GroupConsumer}) rather than to a shard's leader.
   */
  CompletableFuture<Response> send(HostPort target, Request.Builder request) {
    if (closed) {
      return CompletableFuture.failedFuture(FelixException.clientClosed("the client is closed"));
    }
    return connections.get(target).thenCompose(c -> c.send(request, settings.requestTimeout()));
  }

  /**
   * Plain mode: one request to the client's broker, unretried; a connection failure counts towards moving to the
   * next bootstrap broker, as for produces. For the consumer groups' requests, which that broker forwards to the
   * group's coordinator.
   */
  CompletableFuture<Response> sendToPlainBroker(Request.Builder request) {
    HostPort target = metadata.plainTarget();
    return send(target, request).whenComplete((r, e) -> {
      if (e == null) {
        metadata.answeredBy(target);
      } else if (FelixException.from(e).kind() == FelixException.Kind.CONNECTION_FAILED) {
        metadata.connectionFailed(target);
      }
    });
  }

  static FetchResult decode(String stream, int shard, long offset, FetchResponse fetch) {
    List<FetchedRecord> records = new ArrayList<>();
    long next = offset;
    for (RecordBatch batch : fetch.getBatchesList()) {
      List<Record> list = RecordLists.decode(batch.getRecords()).getRecordsList();
      for (int i = 0; i < list.size(); i++) {
        long at = batch.getBaseOffset() + i;
        if (at < next) {
          continue;
        }
        Record r = list.get(i);
        records.add(new FetchedRecord(at, r.getKey().toByteArray(), r.getValue().toByteArray(),
            r.getHeadersList(), r.getTimestampMs()));
        next = at + 1;
      }
    }
    // The broker's next_offset also steps over epoch markers, which it never sends.
    next = Math.max(next, fetch.getNextOffset());
    return new FetchResult(stream, shard, List.copyOf(records), next, fetch.getCommitOffset(),
        fetch.getLogStartOffset());
  }

  /**
   * Stops taking records, sends what is pending ignoring linger, waits up to requestTimeout for the answers,
   * then fails whatever is left with CLIENT_CLOSED and closes the connections (failing outstanding fetches).
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    accumulator.closeStarted();
    try {
      senderThread.join(settings.requestTimeout().toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    senderThread.interrupt();
    connections.close();
    // Whatever is still unanswered now fails; completing an already completed future does nothing.
    for (ProduceBatch b : accumulator.abandonAll()) {
      b.failed(FelixException.clientClosed(
          "the client closed before " + b.stream + "/" + b.shard + " was acknowledged"));
    }
    timer.shutdownNow();
  }
}
