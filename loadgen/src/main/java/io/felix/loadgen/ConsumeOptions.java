package io.felix.loadgen;

import io.felix.client.ClientCredentials;
import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Options of the load generator's reader, {@code felix perf consume --stream NAME} (parsed by the felix command).
 *
 * @param fromBeginning read each shard from its log start up to the commit offset seen when reading started;
 *     without it, read from that commit offset on, following new records
 * @param idle stop reading a shard after this long without progress
 * @param expect a {@code produce --json} file: with it, "missing" means acknowledged and not found
 * @param group read as a member of this consumer group (null: every shard, no group): the shards the group assigns,
 *     from the group's committed offsets, committing after every poll, until idle
 * @param credentials the user and password to authenticate with (SASL/SCRAM-SHA-256), or null for none
 * @param members with a group: how many members read side by side in this process (each with its own client)
 * @param churn with a group: every this long the oldest member leaves (it commits, then leaves) and a new one joins;
 *     null for none
 * @param tls the TLS context to reach the brokers with, or null for plaintext
 */
public record ConsumeOptions(
    List<HostPort> bootstrap,
    String stream,
    ClientMode mode,
    boolean fromBeginning,
    boolean verify,
    Path expect,
    Path json,
    Duration idle,
    int maxBytes,
    String group,
    ClientCredentials credentials,
    int members,
    Duration churn,
    javax.net.ssl.SSLContext tls) {

  public ConsumeOptions {
    if (members < 1) {
      throw new IllegalArgumentException("members must be at least 1, got " + members);
    }
  }

  /** Without a group and without authentication. */
  public ConsumeOptions(List<HostPort> bootstrap, String stream, ClientMode mode, boolean fromBeginning,
      boolean verify, Path expect, Path json, Duration idle, int maxBytes) {
    this(bootstrap, stream, mode, fromBeginning, verify, expect, json, idle, maxBytes, null, null, 1, null, null);
  }
}
