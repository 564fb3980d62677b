package io.felix.loadgen.chaos;

import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.HostPort;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes one probe record to each shard (or to the shards given) until each acknowledged one (acks quorum), within
 * a bound. The probe's
 * value lacks the load generator's magic, so the verifier counts it as foreign and ignores it.
 */
public final class WritabilityProbe {
  private static final byte[] PROBE = "chaos-probe".getBytes(StandardCharsets.UTF_8);
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);
  private static final int MANY_SHARDS_CLIENTS = 8;

  /**
   * @param time from the start of the probe until the last shard acknowledged (the bound when some did not)
   * @param notWritable the shards that acknowledged nothing within the bound (empty when all did)
   * @param acknowledgedAfter each shard that acknowledged: from the start of the probe until it did
   */
  public record Writability(Duration time, List<Integer> notWritable, Map<Integer, Duration> acknowledgedAfter) {
    /** Whether every shard acknowledged within the bound. */
    public boolean within(Duration bound) {
      return notWritable.isEmpty() && time.compareTo(bound) <= 0;
    }
  }

  private final List<HostPort> bootstrap;
  private final String stream;
  private final List<Integer> shards;
  private final Duration retryPause;
  private final Duration retryPauseMax;
  private final int clients;

  /** Probes every shard of the stream, pausing 200 ms between tries. */
  public WritabilityProbe(List<HostPort> bootstrap, String stream, int shards) {
    this(bootstrap, stream, allShards(shards), RETRY_PAUSE, RETRY_PAUSE, 1);
  }

  /** Probes the given shards, pausing {@code retryPause} between tries (short for timing a failover). */
  WritabilityProbe(List<HostPort> bootstrap, String stream, List<Integer> shards, Duration retryPause) {
    this(bootstrap, stream, shards, retryPause, retryPause, 1);
  }

  private WritabilityProbe(List<HostPort> bootstrap, String stream, List<Integer> shards, Duration retryPause,
      Duration retryPauseMax, int clients) {
    this.bootstrap = bootstrap;
    this.stream = stream;
    this.shards = List.copyOf(shards);
    this.retryPause = retryPause;
    this.retryPauseMax = retryPauseMax;
    this.clients = clients;
  }

  /**
   * Probes every shard of a large stream as producers would: each client retries a refused write after its default
   * backoff, 50 ms doubling up to 1 s (as Kafka's producer does by default), so 10,000 shards without leaders yet
   * cost the brokers about 10,000 refusals a second rather than the 50,000 of a fixed 200 ms pause; a shard is found
   * writable up to a second after it became so. The shards are spread over {@value #MANY_SHARDS_CLIENTS} clients: a
   * client sends one request per shard and keeps at most 64 in flight per broker, so with one client the 10,000
   * first writes queue behind each other in it (measured 2026-12-07: half of them acknowledged only after 58 s,
   * while the brokers showed 8,000 of those shards led with every replica in sync at 30 s).
   */
  public static WritabilityProbe withClientBackoff(List<HostPort> bootstrap, String stream, int shards) {
    ClientSettings defaults = ClientSettings.builder(bootstrap).build();
    return new WritabilityProbe(bootstrap, stream, allShards(shards), defaults.retryBackoff(),
        defaults.retryBackoffMax(), MANY_SHARDS_CLIENTS);
  }

  private static List<Integer> allShards(int shards) {
    return java.util.stream.IntStream.range(0, shards).boxed().toList();
  }

  /**
   * Probes every shard not yet writable at once, again after a short pause until each acknowledged one or the
   * bound is over; a fresh client, so no metadata from before the fault is reused.
   */
  public Writability await(Duration bound) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    long lastAcknowledged = start;
    Set<Integer> remaining = new TreeSet<>(shards);
    Map<Integer, Duration> acknowledgedAfter = new TreeMap<>();
    // The client's own retries back off no longer than the probe's longest pause, so a shard is found writable
    // within that pause of becoming so.
    ClientSettings settings = ClientSettings.builder(bootstrap).retryBackoff(retryPause)
        .retryBackoffMax(retryPauseMax).build();
    List<FelixClient> clients = new ArrayList<>();
    try {
      for (int i = 0; i < this.clients; i++) {
        clients.add(new FelixClient(settings));
      }
      while (!remaining.isEmpty() && System.nanoTime() < deadline) {
        Map<Integer, CompletableFuture<Long>> attempts = new TreeMap<>();
        // Each acknowledgement is timed when it comes, not when the loop below gets to it (a slow shard ahead of
        // it in the loop would otherwise delay it too).
        remaining.forEach(shard -> attempts.put(shard, clients.get(shard % clients.size())
            .produce(stream, shard, null, PROBE, List.of()).thenApply(metadata -> System.nanoTime())));
        for (Map.Entry<Integer, CompletableFuture<Long>> attempt : attempts.entrySet()) {
          try {
            long acknowledgedAt = attempt.getValue().get(Math.max(0, deadline - System.nanoTime()),
                TimeUnit.NANOSECONDS);
            remaining.remove(attempt.getKey());
            lastAcknowledged = Math.max(lastAcknowledged, acknowledgedAt);
            acknowledgedAfter.put(attempt.getKey(), Duration.ofNanos(acknowledgedAt - start));
          } catch (ExecutionException | TimeoutException notYet) {
            // refused (no leader yet, fenced) or unanswered by the deadline: tried again below, if time is left
          }
        }
        if (!remaining.isEmpty()) {
          Thread.sleep(retryPause.toMillis());
        }
      }
    } finally {
      clients.forEach(FelixClient::close);
    }
    return remaining.isEmpty()
        ? new Writability(Duration.ofNanos(lastAcknowledged - start), List.of(), acknowledgedAfter)
        : new Writability(bound, List.copyOf(remaining), acknowledgedAfter);
  }
}
