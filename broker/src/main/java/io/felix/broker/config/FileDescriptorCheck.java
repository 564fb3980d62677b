package io.felix.broker.config;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.OptionalLong;

/**
 * Checks at start that the process's open-file limit covers what the broker may need: one descriptor per hosted
 * replica whose log is in use (its active segment; an idle log holds none), one per client connection, and a reserve
 * for replication connections, Artery, the journal, sealed segments being read and the JVM (the figures of
 * {@link ReplicaCapacity}). With {@code felix.broker.max-shards} set, a limit below that is a start-up error naming
 * both numbers; without it, the broker says how many replicas the limit allows.
 */
public final class FileDescriptorCheck {
  public static final int PER_REPLICA = ReplicaCapacity.FDS_PER_ACTIVE_REPLICA;
  public static final int RESERVE = ReplicaCapacity.FD_RESERVE;

  /** What the check found: {@code fatal} means the broker must not start. */
  public record Finding(boolean fatal, String message) {}

  private FileDescriptorCheck() {}

  public static Finding judge(long openFileLimit, int maxShards, int maxConnections) {
    long fixed = RESERVE + (long) maxConnections;
    if (maxShards > 0) {
      long needed = fixed + (long) PER_REPLICA * maxShards;
      if (openFileLimit < needed) {
        return new Finding(true, "the open-file limit (ulimit -n) is " + openFileLimit + ", below the " + needed
            + " this broker may need: " + PER_REPLICA + " per replica in use for felix.broker.max-shards = "
            + maxShards + ", one per client connection for felix.client-listener.max-connections = "
            + maxConnections + ", and " + RESERVE + " in reserve; raise the limit or lower those settings");
      }
      return new Finding(false, "open-file limit " + openFileLimit + " covers the " + needed + " that "
          + maxShards + " replicas and " + maxConnections + " client connections may need");
    }
    long replicas = ReplicaCapacity.byDescriptors(openFileLimit, maxConnections);
    return new Finding(false, "open-file limit " + openFileLimit + " allows about " + replicas + " replicas on this"
        + " broker (" + PER_REPLICA + " descriptor each while its log is in use, beside " + maxConnections
        + " client connections and " + RESERVE + " in reserve); set felix.broker.max-shards so that placement stays"
        + " below it");
  }

  /** The process's open-file limit, when the JVM can tell (Unix). */
  public static OptionalLong processLimit() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      return OptionalLong.of(unix.getMaxFileDescriptorCount());
    }
    return OptionalLong.empty();
  }
}
