package io.felix.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.zip.CRC32;

/**
 * CPU budgets for local brokers ({@code felix local up --cpu-per-broker CORES}): each broker runs in a Linux cgroup
 * of its own with a CPU quota of CORES, as if it had a machine of its own, while the commands run beside it (the
 * load generator) stay outside every budget. cgroup v2 ({@code cpu.max}) where it is mounted at /sys/fs/cgroup with
 * the cpu controller, else v1's cpu controller ({@code cpu.cfs_quota_us}). A cluster's groups are
 * {@code felix-<hash of its directory>/brokerN}; the supervisor enters its broker's group before starting the
 * broker, which inherits it, and 'local down' removes the groups once their processes are gone.
 */
public final class CpuBudget {
  private static final Path V2 = Path.of("/sys/fs/cgroup");
  private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
  private static final long PERIOD_MICROS = 100_000;
  public static final double MIN_CORES = 0.01;

  /** A writable cgroup hierarchy with the cpu controller. */
  record Hierarchy(boolean v2, Path root) {}

  private CpuBudget() {}

  /** The hierarchy budgets go in, or empty when none can be written (usually: not root). */
  static Optional<Hierarchy> hierarchy() {
    try {
      Path controllers = V2.resolve("cgroup.controllers");
      if (Files.isRegularFile(controllers) && List.of(Files.readString(controllers).trim().split("\\s+")).contains("cpu")
          && Files.isWritable(V2)) {
        return Optional.of(new Hierarchy(true, V2));
      }
    } catch (IOException unreadable) {
      // fall through to v1
    }
    if (Files.isDirectory(V1) && Files.isWritable(V1) && Files.isRegularFile(V1.resolve("cpu.cfs_quota_us"))) {
      return Optional.of(new Hierarchy(false, V1));
    }
    return Optional.empty();
  }

  /** Refuses a budget that cannot be applied, before any broker starts. */
  public static void check(double cores) {
    if (!(cores >= MIN_CORES)) {
      throw new IllegalArgumentException("--cpu-per-broker must be a number of cores of at least " + MIN_CORES
          + ", like 0.5 or 2, got " + cores);
    }
    if (hierarchy().isEmpty()) {
      throw new IllegalArgumentException("--cpu-per-broker needs a writable cgroup hierarchy with the cpu controller"
          + " (cgroup v2 at /sys/fs/cgroup, or v1 at /sys/fs/cgroup/cpu), usually as root; none was found writable"
          + " here");
    }
  }

  /** The parent group of the cluster in {@code localDir}, under the hierarchy's root. */
  static Path clusterGroup(Hierarchy hierarchy, Path localDir) {
    CRC32 crc = new CRC32();
    crc.update(localDir.toAbsolutePath().normalize().toString().getBytes(StandardCharsets.UTF_8));
    return hierarchy.root().resolve("felix-" + Long.toHexString(crc.getValue()));
  }

  /**
   * Moves process {@code pid} (the supervisor, before it starts the broker) into broker N's group with a quota of
   * {@code cores}; returns the group.
   */
  static Path enter(Path localDir, int broker, double cores, long pid) throws IOException {
    Hierarchy hierarchy = hierarchy().orElseThrow(() -> new IOException("broker " + broker
        + " has a CPU budget but no cgroup hierarchy with the cpu controller is writable"));
    Path group = clusterGroup(hierarchy, localDir).resolve("broker" + broker);
    Files.createDirectories(group);
    long quota = Math.round(cores * PERIOD_MICROS);
    if (hierarchy.v2()) {
      // A v2 group passes a controller to its children only when its parent enables it for them.
      try {
        Files.writeString(group.getParent().resolve("cgroup.subtree_control"), "+cpu");
      } catch (IOException alreadyOrRefused) {
        // enabled before, or refused: writing cpu.max below says which
      }
      Files.writeString(group.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
    } else {
      Files.writeString(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
      Files.writeString(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
    }
    Files.writeString(group.resolve("cgroup.procs"), Long.toString(pid));
    return group;
  }

  /** Removes the cluster's groups ('local down'); returns the groups that still hold processes and were left. */
  static List<Path> removeAll(Path localDir) {
    List<Path> left = new ArrayList<>();
    Optional<Hierarchy> hierarchy = hierarchy();
    if (hierarchy.isEmpty()) {
      return left;
    }
    Path parent = clusterGroup(hierarchy.get(), localDir);
    if (!Files.isDirectory(parent)) {
      return left;
    }
    try (Stream<Path> groups = Files.list(parent)) {
      for (Path group : groups.filter(Files::isDirectory).filter(g -> g.getFileName().toString().startsWith("broker"))
          .toList()) {
        try {
          Files.delete(group); // rmdir: a cgroup directory goes once it holds no process
        } catch (IOException busy) {
          left.add(group);
        }
      }
    } catch (IOException e) {
      return left;
    }
    try {
      Files.deleteIfExists(parent);
    } catch (IOException stillHoldsGroups) {
      // left in place with the busy groups
    }
    return left;
  }
}
