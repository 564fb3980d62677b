package io.felix.client;

import io.felix.protocol.FrameCodec;
import io.felix.protocol.client.Acks;
import java.time.Duration;
import java.util.List;

/**
 * Everything a {@link FelixClient} is configured with; build with {@link #builder}. {@link Builder#build()}
 * validates and names the setting at fault.
 *
 * @param bootstrap brokers to read metadata from (cluster mode) or the broker(s) to talk to, first reachable wins
 *     (plain mode)
 * @param linger how long a batch may wait for more records before it is sent (default 5 ms)
 * @param batchSizeBytes a batch is sent as soon as its encoded records reach this size (default 256 KiB)
 * @param maxInFlightPerConnection requests written and not yet answered on one connection; more wait in the
 *     client (default 64)
 * @param maxInFlightBatchesPerShard produce batches in flight per shard (default 1). With 1, a retried batch is
 *     re-sent before any later batch of its shard, so records of a shard keep their order (Kafka's
 *     max.in.flight=1 with retries); throughput comes from pipelining across shards. Above 1, a retry can
 *     overtake.
 * @param requestTimeout how long the client waits for any one answer (default 30 s)
 * @param ackTimeout how long the broker may wait for the acks of a produce (ProduceRequest.timeout_ms; default
 *     10 s; must be below requestTimeout so the broker answers first)
 * @param retries attempts after the first for a produce batch or a fetch (default unlimited, as in Kafka: the
 *     delivery timeout is the bound that matters, and it rides out a leader failover)
 * @param retryBackoff first retry delay, doubled on every attempt up to retryBackoffMax (defaults 50 ms, 1 s)
 * @param deliveryTimeout bound on a record's whole life from produce() to acknowledgement (default 120 s)
 * @param retryAmbiguousErrors whether to retry a produce whose outcome is unknown (TIMEOUT, NOT_ENOUGH_REPLICAS
 *     without not_appended, connection lost after the request was written, no answer in time). Default false:
 *     such a retry duplicates the batch when the first attempt was in fact stored; the record's future fails
 *     instead, with {@link FelixException#notAppended()} false.
 * @param metadataMaxAge metadata is re-read at least this often (default 5 min), and at once after NOT_LEADER
 *     or a failed connection
 * @param connectTimeout how long opening a connection may take (default 5 s); also how long one broker gets to
 *     answer a metadata request before the next is asked as well (metadata is answered from memory, so a broker
 *     that takes longer is presumed down; its answer is still taken if it comes first)
 * @param plainModeFailoverAfter plain mode: connection failures in a row to its broker after which the client
 *     moves to the next bootstrap broker (default 2: one failure may be a blip or a quick restart, a second one
 *     means the broker is gone for now)
 * @param idempotence the idempotent producer (default true, as in Kafka since 3.0): the client takes a producer
 *     id from the cluster and numbers its batches per shard, the leader stores each batch once and answers a
 *     re-sent one with its original offset, so every failure (ambiguous ones too) is retried within the delivery
 *     timeout without duplicates, and records of a shard keep their order with up to
 *     {@value #MAX_IN_FLIGHT_BATCHES_IDEMPOTENT} batches in flight. Off: the rules of retryAmbiguousErrors.
 * @param credentials user name and password for SASL/SCRAM-SHA-256, run on every new connection before any other
 *     request (default none: for brokers with felix.security.client-authentication off)
 * @param tls null (default): plaintext; else every connection speaks TLS with this context and checks that the
 *     broker's certificate names the host it dialled (build one with
 *     {@link io.felix.protocol.tls.TlsFiles#clientContext})
 * @param leaderSilenceTimeout cluster mode with idempotence: a produce unanswered this long (default 1 s) makes the
 *     client re-read metadata (asking the silent broker last) every half of it while the request stays unanswered,
 *     and once a newer leader epoch is known for the shard its batches in flight are re-sent there with the same
 *     numbers, without waiting out requestTimeout ({@link LeaderWatch}). A leader stopped (SIGSTOP) or cut off
 *     keeps the connection open and answers nothing, so only this notices it within a failover.
 * @param cacheGetBatchKeys cache gets ({@link FelixCache#get}) are coalesced per shard: at most this many keys go in
 *     one MultiGet request (default 128; see {@link CacheGetBatcher})
 * @param cacheGetsInFlightPerShard a get is sent at once while fewer than this many MultiGet requests of its shard
 *     are unanswered, else it goes with the next one (default 2)
 */
public record ClientSettings(
    List<HostPort> bootstrap,
    ClientMode mode,
    Acks acks,
    Duration linger,
    int batchSizeBytes,
    int maxInFlightPerConnection,
    int maxInFlightBatchesPerShard,
    Duration requestTimeout,
    Duration ackTimeout,
    int retries,
    Duration retryBackoff,
    Duration retryBackoffMax,
    Duration deliveryTimeout,
    boolean retryAmbiguousErrors,
    Duration metadataMaxAge,
    Duration connectTimeout,
    int maxFrameBytes,
    int plainModeFailoverAfter,
    boolean idempotence,
    ClientCredentials credentials,
    javax.net.ssl.SSLContext tls,
    Duration leaderSilenceTimeout,
    int cacheGetBatchKeys,
    int cacheGetsInFlightPerShard) {

  /** Room kept in a frame for the produce request around its records (stream name, shard, acks, tags). */
  public static final int REQUEST_OVERHEAD_BYTES = 4096;

  /** As Kafka: a leader remembers a producer's last five batches per shard, so at most five may be in flight. */
  public static final int MAX_IN_FLIGHT_BATCHES_IDEMPOTENT = 5;

  public static Builder builder(List<HostPort> bootstrap) {
    return new Builder(bootstrap);
  }

  public static Builder builder(String bootstrap) {
    return new Builder(HostPort.parseList(bootstrap));
  }

  /** Delay before retry number {@code attempt} (1 = first retry): backoff doubled per attempt, capped. */
  public long backoffNanos(int attempt) {
    long base = retryBackoff.toNanos();
    long cap = retryBackoffMax.toNanos();
    int shift = Math.min(Math.max(attempt - 1, 0), 30);
    long delay = base << shift;
    return delay < 0 || delay > cap ? cap : delay;
  }

  /** Mutable builder with the documented defaults. */
  public static final class Builder {
    private final List<HostPort> bootstrap;
    private ClientMode mode = ClientMode.CLUSTER;
    private Acks acks = Acks.QUORUM;
    private Duration linger = Duration.ofMillis(5);
    private int batchSizeBytes = 256 * 1024;
    private int maxInFlightPerConnection = 64;
    private int maxInFlightBatchesPerShard = 1;
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration ackTimeout = Duration.ofSeconds(10);
    private int retries = Integer.MAX_VALUE;
    private Duration retryBackoff = Duration.ofMillis(50);
    private Duration retryBackoffMax = Duration.ofSeconds(1);
    private Duration deliveryTimeout = Duration.ofSeconds(120);
    private boolean retryAmbiguousErrors = false;
    private Duration metadataMaxAge = Duration.ofMinutes(5);
    private Duration connectTimeout = Duration.ofSeconds(5);
    private int maxFrameBytes = FrameCodec.DEFAULT_MAX_FRAME_BYTES;
    private int plainModeFailoverAfter = 2;
    private boolean idempotence = true;
    private ClientCredentials credentials;
    private javax.net.ssl.SSLContext tls;
    private Duration leaderSilenceTimeout = Duration.ofSeconds(1);
    private int cacheGetBatchKeys = 128;
    private int cacheGetsInFlightPerShard = 2;

    private Builder(List<HostPort> bootstrap) {
      this.bootstrap = bootstrap == null ? List.of() : List.copyOf(bootstrap);
    }

    public Builder mode(ClientMode v) { mode = v; return this; }
    public Builder acks(Acks v) { acks = v; return this; }
    public Builder linger(Duration v) { linger = v; return this; }
    public Builder batchSizeBytes(int v) { batchSizeBytes = v; return this; }
    public Builder maxInFlightPerConnection(int v) { maxInFlightPerConnection = v; return this; }
    public Builder maxInFlightBatchesPerShard(int v) { maxInFlightBatchesPerShard = v; return this; }
    public Builder requestTimeout(Duration v) { requestTimeout = v; return this; }
    public Builder ackTimeout(Duration v) { ackTimeout = v; return this; }
    public Builder retries(int v) { retries = v; return this; }
    public Builder retryBackoff(Duration v) { retryBackoff = v; return this; }
    public Builder retryBackoffMax(Duration v) { retryBackoffMax = v; return this; }
    public Builder deliveryTimeout(Duration v) { deliveryTimeout = v; return this; }
    public Builder retryAmbiguousErrors(boolean v) { retryAmbiguousErrors = v; return this; }
    public Builder metadataMaxAge(Duration v) { metadataMaxAge = v; return this; }
    public Builder connectTimeout(Duration v) { connectTimeout = v; return this; }
    public Builder maxFrameBytes(int v) { maxFrameBytes = v; return this; }
    public Builder plainModeFailoverAfter(int v) { plainModeFailoverAfter = v; return this; }
    public Builder idempotence(boolean v) { idempotence = v; return this; }
    public Builder credentials(String user, String password) {
      credentials = new ClientCredentials(user, password);
      return this;
    }
    /** null: no authentication. */
    public Builder credentials(ClientCredentials v) { credentials = v; return this; }
    public Builder tls(javax.net.ssl.SSLContext v) { tls = v; return this; }
    public Builder leaderSilenceTimeout(Duration v) { leaderSilenceTimeout = v; return this; }
    public Builder cacheGetBatchKeys(int v) { cacheGetBatchKeys = v; return this; }
    public Builder cacheGetsInFlightPerShard(int v) { cacheGetsInFlightPerShard = v; return this; }

    public ClientSettings build() {
      if (bootstrap.isEmpty()) {
        throw new IllegalArgumentException("bootstrap: at least one broker address is needed");
      }
      require(mode != null, "mode must be set");
      require(acks != null && acks != Acks.UNRECOGNIZED, "acks must be QUORUM, ALL or LEADER");
      nonNegative("linger", linger);
      require(batchSizeBytes > 0, "batchSizeBytes must be positive, got " + batchSizeBytes);
      require(batchSizeBytes <= maxFrameBytes - REQUEST_OVERHEAD_BYTES, "batchSizeBytes (" + batchSizeBytes
          + ") must leave " + REQUEST_OVERHEAD_BYTES + " bytes of maxFrameBytes (" + maxFrameBytes
          + ") for the rest of the request");
      require(maxInFlightPerConnection > 0, "maxInFlightPerConnection must be positive, got "
          + maxInFlightPerConnection);
      require(maxInFlightBatchesPerShard > 0, "maxInFlightBatchesPerShard must be positive, got "
          + maxInFlightBatchesPerShard);
      positive("requestTimeout", requestTimeout);
      positive("ackTimeout", ackTimeout);
      require(ackTimeout.compareTo(requestTimeout) < 0, "ackTimeout (" + ackTimeout
          + ") must be below requestTimeout (" + requestTimeout + ") so the broker answers first");
      require(retries >= 0, "retries must be zero or more, got " + retries);
      nonNegative("retryBackoff", retryBackoff);
      require(retryBackoffMax != null && retryBackoffMax.compareTo(retryBackoff) >= 0,
          "retryBackoffMax must be at least retryBackoff");
      positive("deliveryTimeout", deliveryTimeout);
      positive("metadataMaxAge", metadataMaxAge);
      positive("connectTimeout", connectTimeout);
      require(plainModeFailoverAfter > 0, "plainModeFailoverAfter must be positive, got " + plainModeFailoverAfter);
      require(!idempotence || maxInFlightBatchesPerShard <= MAX_IN_FLIGHT_BATCHES_IDEMPOTENT,
          "maxInFlightBatchesPerShard must be at most " + MAX_IN_FLIGHT_BATCHES_IDEMPOTENT + " with idempotence, got "
          + maxInFlightBatchesPerShard);
      positive("leaderSilenceTimeout", leaderSilenceTimeout);
      require(cacheGetBatchKeys > 0, "cacheGetBatchKeys must be positive, got " + cacheGetBatchKeys);
      require(cacheGetsInFlightPerShard > 0, "cacheGetsInFlightPerShard must be positive, got "
          + cacheGetsInFlightPerShard);
      return new ClientSettings(bootstrap, mode, acks, linger, batchSizeBytes, maxInFlightPerConnection,
          maxInFlightBatchesPerShard, requestTimeout, ackTimeout, retries, retryBackoff, retryBackoffMax,
          deliveryTimeout, retryAmbiguousErrors, metadataMaxAge, connectTimeout, maxFrameBytes,
          plainModeFailoverAfter, idempotence, credentials, tls, leaderSilenceTimeout, cacheGetBatchKeys,
          cacheGetsInFlightPerShard);
    }

    private static void require(boolean ok, String message) {
      if (!ok) {
        throw new IllegalArgumentException(message);
      }
    }

    private static void positive(String name, Duration d) {
      require(d != null && !d.isNegative() && !d.isZero(), name + " must be a positive duration, got " + d);
    }

    private static void nonNegative(String name, Duration d) {
      require(d != null && !d.isNegative(), name + " must not be negative, got " + d);
    }
  }
}
