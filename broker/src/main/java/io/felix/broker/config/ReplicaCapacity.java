package io.felix.broker.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import java.util.OptionalLong;

/**
 * How many shard replicas this broker can host: the smaller of what its open-file limit and its heap allow, or
 * {@code felix.control.max-replicas-per-broker} when that is set (an operator who measured their own hardware). The
 * placement singleton refuses a stream whose replicas would take a broker past it, so that a limit Felix accepts is
 * one it keeps.
 *
 * <h2>Derivation</h2>
 * <ul>
 *   <li>File descriptors: {@code (limit - max-connections - }{@value #FD_RESERVE}{@code ) / }
 *       {@value #FDS_PER_ACTIVE_REPLICA}. A replica whose log is in use holds one descriptor (its active segment's
 *       file; an idle one, none, see {@code felix.log.idle-file-close}), and every replica may be in use at once.
 *       The reserve covers the JVM's own files, the replication and cluster connections, the journal, sealed
 *       segments being read and the checkpoint files written for a moment.
 *   <li>Heap: {@code (max heap - }{@value #HEAP_RESERVE_MIB}{@code  MiB) / }{@value #HEAP_PER_IDLE_REPLICA_BYTES}
 *       {@code bytes}: the heap an idle replica costs (its actor and its log, measured with
 *       {@code bench/.../ReplicaLogFootprint} and rounded up, see docs/log-format.md), and a reserve for
 *       everything that is not per replica (requests in flight, the client listener's budget, caches, Pekko).
 * </ul>
 * Worked example, three local brokers with their defaults ({@code ulimit -n} 20,000, 1,000 client connections,
 * {@code -Xmx512m}): descriptors allow (20,000 - 1,000 - 512) / 1 = 18,488; heap allows (512 - 160) MiB / 12 KiB =
 * 30,037; so 18,488 replicas per broker: a 10,000-shard stream at RF 3 puts 10,000 on each.
 *
 * @param replicas what this broker can host (the override if set, else the smaller derived figure)
 * @param byDescriptors what the open-file limit allows (Long.MAX_VALUE when the JVM cannot tell the limit)
 * @param byHeap what the heap allows
 * @param overridden whether {@code felix.control.max-replicas-per-broker} set {@code replicas}
 */
public record ReplicaCapacity(long replicas, long byDescriptors, long byHeap, boolean overridden) {
  public static final int FDS_PER_ACTIVE_REPLICA = 1;
  public static final int FD_RESERVE = 512;
  public static final long HEAP_PER_IDLE_REPLICA_BYTES = 12 * 1024;
  public static final long HEAP_RESERVE_MIB = 160;
  public static final String OVERRIDE_KEY = "felix.control.max-replicas-per-broker";

  /**
   * The derivation, from its inputs.
   *
   * @param openFileLimit the process's open-file limit, if known
   * @param maxConnections {@code felix.client-listener.max-connections}
   * @param maxHeapBytes the JVM's maximum heap
   * @param configured {@code felix.control.max-replicas-per-broker}: 0 = derive
   */
  public static ReplicaCapacity derive(OptionalLong openFileLimit, int maxConnections, long maxHeapBytes,
      long configured) {
    ConfigChecks.atLeast(OVERRIDE_KEY, configured, 0);
    long byDescriptors = openFileLimit.isPresent()
        ? byDescriptors(openFileLimit.getAsLong(), maxConnections) : Long.MAX_VALUE;
    long byHeap = Math.max(0, (maxHeapBytes - HEAP_RESERVE_MIB * 1024 * 1024) / HEAP_PER_IDLE_REPLICA_BYTES);
    if (configured > 0) {
      return new ReplicaCapacity(configured, byDescriptors, byHeap, true);
    }
    return new ReplicaCapacity(Math.min(byDescriptors, byHeap), byDescriptors, byHeap, false);
  }

  /** The replicas an open-file limit covers beside {@code maxConnections} client connections and the reserve. */
  public static long byDescriptors(long openFileLimit, int maxConnections) {
    return Math.max(0, (openFileLimit - maxConnections - FD_RESERVE) / FDS_PER_ACTIVE_REPLICA);
  }

  /** This process's capacity under {@code config} (a full config with felix.control and felix.client-listener). */
  public static ReplicaCapacity of(Config config) {
    long configured;
    try {
      configured = config.getLong(OVERRIDE_KEY);
    } catch (ConfigException.WrongType e) {
      throw new ConfigException.BadValue(OVERRIDE_KEY, "must be a whole number, 0 = derived", e);
    }
    return derive(FileDescriptorCheck.processLimit(), config.getInt("felix.client-listener.max-connections"),
        Runtime.getRuntime().maxMemory(), configured);
  }

  /** One line for the broker's start-up log and for a refusal: the figure and where it comes from. */
  public String explain() {
    String derived = "open files allow " + (byDescriptors == Long.MAX_VALUE ? "any number (limit unknown)"
        : byDescriptors) + " (" + FDS_PER_ACTIVE_REPLICA + " per replica in use, beside the client connections and "
        + FD_RESERVE + " in reserve), the heap " + byHeap + " (" + HEAP_PER_IDLE_REPLICA_BYTES / 1024
        + " KiB per idle replica beside " + HEAP_RESERVE_MIB + " MiB in reserve)";
    return overridden ? replicas + " replicas (" + OVERRIDE_KEY + "; derived: " + derived + ")"
        : replicas + " replicas (" + derived + "; " + OVERRIDE_KEY + " overrides)";
  }
}
