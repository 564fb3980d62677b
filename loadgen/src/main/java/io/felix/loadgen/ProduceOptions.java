package io.felix.loadgen;

import io.felix.client.ClientCredentials;
import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Options of the load generator's producers, {@code felix perf produce --stream NAME} (parsed by the felix command).
 *
 * @param rate records per second over all producers; 0 = as fast as the outstanding limit allows
 * @param duration how long to produce; null when {@code records} bounds the run instead
 * @param records total records over all producers; 0 when {@code duration} bounds the run
 * @param keySpace 0 = no keys (sticky shard per batch); N = keys "k0".."k{N-1}"
 * @param maxOutstanding records produced and not yet answered, per producer; a producer waits beyond it
 * @param idempotence the client's idempotent producer (default on; {@code --no-idempotence} turns it off, and
 *     ambiguous failures then fail their records as uncertain instead of being retried)
 * @param credentials SCRAM-SHA-256 user and password (--user, --password or FELIX_PASSWORD); null: none
 * @param tls the TLS context trusting the cluster CA (--tls-ca); null: plaintext
 * @param warmup produced before {@code duration}, at the same rate, and left out of the figures (latency,
 *     throughput, the broker CPU of {@code --broker-cpu}): the load generator's JVM compiles its own code meanwhile.
 *     Its records are in the ledger. Zero: none. Only with {@code duration}
 */
public record ProduceOptions(
    List<HostPort> bootstrap,
    String stream,
    ClientMode mode,
    int recordSize,
    long rate,
    Duration duration,
    long records,
    int producers,
    Acks acks,
    long keySpace,
    Path json,
    Duration linger,
    int batchSizeBytes,
    int maxOutstanding,
    boolean idempotence,
    ClientCredentials credentials,
    javax.net.ssl.SSLContext tls,
    Duration warmup) {

  /** Without authentication, in plaintext. */
  public ProduceOptions(List<HostPort> bootstrap, String stream, ClientMode mode, int recordSize, long rate,
      Duration duration, long records, int producers, Acks acks, long keySpace, Path json, Duration linger,
      int batchSizeBytes, int maxOutstanding, boolean idempotence) {
    this(bootstrap, stream, mode, recordSize, rate, duration, records, producers, acks, keySpace, json, linger,
        batchSizeBytes, maxOutstanding, idempotence, null, null, Duration.ZERO);
  }
}
