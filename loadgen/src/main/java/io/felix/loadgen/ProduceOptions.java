package io.felix.loadgen;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Options of {@code produce}.
 *
 * @param rate records per second over all producers; 0 = as fast as the outstanding limit allows
 * @param duration how long to produce; null when {@code records} bounds the run instead
 * @param records total records over all producers; 0 when {@code duration} bounds the run
 * @param keySpace 0 = no keys (sticky shard per batch); N = keys "k0".."k{N-1}"
 * @param maxOutstanding records produced and not yet answered, per producer; a producer waits beyond it
 * @param idempotence the client's idempotent producer (default on; {@code --no-idempotence} turns it off, and
 *     ambiguous failures then fail their records as uncertain instead of being retried)
 */
record ProduceOptions(
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
    boolean idempotence) {

  static final Set<String> VALUED = Set.of("bootstrap", "stream", "mode", "record-size", "rate", "duration",
      "records", "producers", "acks", "key-space", "json", "linger", "batch-size", "max-outstanding");

  static Map<String, ClientMode> modes() {
    Map<String, ClientMode> m = new LinkedHashMap<>();
    m.put("cluster", ClientMode.CLUSTER);
    m.put("plain", ClientMode.PLAIN);
    return m;
  }

  static Map<String, Acks> acksWords() {
    Map<String, Acks> m = new LinkedHashMap<>();
    m.put("quorum", Acks.QUORUM);
    m.put("all", Acks.ALL);
    m.put("leader", Acks.LEADER);
    return m;
  }

  static ProduceOptions parse(List<String> args) throws UsageException {
    Flags f = Flags.parse(args, VALUED, Set.of("no-idempotence"));
    if (f.has("duration") && f.has("records")) {
      throw new UsageException("--duration and --records exclude each other: give one");
    }
    long records = f.longValue("records", 0, 1, Long.MAX_VALUE);
    Duration duration = records > 0 ? null : f.duration("duration", Duration.ofSeconds(30));
    String json = f.string("json", null);
    return new ProduceOptions(
        f.addresses("bootstrap"),
        f.required("stream"),
        f.choice("mode", "cluster", modes()),
        f.intValue("record-size", 1024, RecordFormat.HEADER_BYTES, 4 * 1024 * 1024),
        f.longValue("rate", 0, 0, 100_000_000),
        duration,
        records,
        f.intValue("producers", 4, 1, 1024),
        f.choice("acks", "quorum", acksWords()),
        f.longValue("key-space", 0, 0, Long.MAX_VALUE),
        json == null ? null : Path.of(json),
        f.duration("linger", Duration.ofMillis(5)),
        f.intValue("batch-size", 256 * 1024, 1, 4 * 1024 * 1024),
        f.intValue("max-outstanding", 10_000, 1, 10_000_000),
        !f.has("no-idempotence"));
  }
}
