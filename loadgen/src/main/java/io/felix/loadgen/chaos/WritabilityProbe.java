package io.felix.loadgen.chaos;

import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.HostPort;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes one probe record to each shard until each acknowledged one (acks quorum), within a bound. The probe's
 * value lacks the load generator's magic, so the verifier counts it as foreign and ignores it.
 */
final class WritabilityProbe {
  private static final byte[] PROBE = "chaos-probe".getBytes(StandardCharsets.UTF_8);
  private static final Duration RETRY_PAUSE = Duration.ofMillis(200);

  /**
   * @param time from the start of the probe until the last shard acknowledged
   * @param notWritable the shards that acknowledged nothing within the bound (empty when all did)
   */
  record Writability(Duration time, List<Integer> notWritable) {
    boolean inTime() {
      return notWritable.isEmpty();
    }
  }

  private final List<HostPort> bootstrap;
  private final String stream;
  private final int shards;

  WritabilityProbe(List<HostPort> bootstrap, String stream, int shards) {
    this.bootstrap = bootstrap;
    this.stream = stream;
    this.shards = shards;
  }

  /** Probes shard after shard; a fresh client each time, so no metadata from before the fault is reused. */
  Writability await(Duration bound) throws InterruptedException {
    long start = System.nanoTime();
    long deadline = start + bound.toNanos();
    List<Integer> notWritable = new ArrayList<>();
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).build())) {
      for (int shard = 0; shard < shards; shard++) {
        if (!writable(client, shard, deadline)) {
          notWritable.add(shard);
        }
      }
    }
    return new Writability(Duration.ofNanos(System.nanoTime() - start), List.copyOf(notWritable));
  }

  private boolean writable(FelixClient client, int shard, long deadline) throws InterruptedException {
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return false;
      }
      try {
        client.produce(stream, shard, null, PROBE, List.of()).get(left, TimeUnit.NANOSECONDS);
        return true;
      } catch (ExecutionException refused) {
        Thread.sleep(RETRY_PAUSE.toMillis());
      } catch (TimeoutException late) {
        return false;
      }
    }
  }
}
