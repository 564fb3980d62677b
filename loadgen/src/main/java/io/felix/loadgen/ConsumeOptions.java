package io.felix.loadgen;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * Options of {@code consume}.
 *
 * @param fromBeginning read each shard from its log start up to the commit offset seen when reading started;
 *     without it, read from that commit offset on, following new records
 * @param idle stop reading a shard after this long without progress
 * @param expect a {@code produce --json} file: with it, "missing" means acknowledged and not found
 */
record ConsumeOptions(
    List<HostPort> bootstrap,
    String stream,
    ClientMode mode,
    boolean fromBeginning,
    boolean verify,
    Path expect,
    Path json,
    Duration idle,
    int maxBytes) {

  static ConsumeOptions parse(List<String> args) throws UsageException {
    Flags f = Flags.parse(args, Set.of("bootstrap", "stream", "mode", "expect", "json", "idle", "max-bytes"),
        Set.of("from-beginning", "verify"));
    String expect = f.string("expect", null);
    String json = f.string("json", null);
    if (expect != null && !f.has("verify")) {
      throw new UsageException("--expect is only meaningful with --verify");
    }
    return new ConsumeOptions(
        f.addresses("bootstrap"),
        f.required("stream"),
        f.choice("mode", "cluster", ProduceOptions.modes()),
        f.has("from-beginning"),
        f.has("verify"),
        expect == null ? null : Path.of(expect),
        json == null ? null : Path.of(json),
        f.duration("idle", Duration.ofSeconds(5)),
        f.intValue("max-bytes", 1024 * 1024, 1024, 8 * 1024 * 1024 - 64 * 1024));
  }
}
