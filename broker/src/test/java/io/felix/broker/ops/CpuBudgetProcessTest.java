package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import io.felix.testing.MachineRequirements;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/felix local up --cpu-per-broker}: each broker process runs in a cgroup of its own holding the quota
 * asked for, and {@code local down} removes the groups. Needs a writable cgroup hierarchy with the cpu controller
 * (bin/felix refuses the option without one): {@link MachineRequirements}.
 */
@Tag("process")
@Timeout(value = 5, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class CpuBudgetProcessTest {

  private static final Path V2 = Path.of("/sys/fs/cgroup");
  private static final Path V1_CPU = Path.of("/sys/fs/cgroup/cpu");

  @TempDir Path dir;

  @Test
  void eachBrokerRunsInItsOwnGroupWithTheQuotaAndDownRemovesTheGroups() throws Exception {
    boolean v2 = Files.isRegularFile(V2.resolve("cgroup.controllers"))
        && Files.readString(V2.resolve("cgroup.controllers")).contains("cpu") && Files.isWritable(V2);
    boolean v1 = Files.isRegularFile(V1_CPU.resolve("cpu.cfs_quota_us")) && Files.isWritable(V1_CPU);
    MachineRequirements.require("CpuBudgetProcessTest", v1 || v2 ? null
        : "no writable cgroup hierarchy with the cpu controller under /sys/fs/cgroup (run as root on Linux)");
    Path groups;
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"), UpOptions.brokers(2).cpuPerBroker(1),
        LauncherEnvironment.brokersFromTestClasspath("256m"))) {
      Path root = v2 ? V2 : V1_CPU;
      Path group0 = group(launcher.pid(0), v2).map(g -> root.resolve(g.substring(1))).orElseThrow();
      Path group1 = group(launcher.pid(1), v2).map(g -> root.resolve(g.substring(1))).orElseThrow();
      assertEquals(List.of("broker0", "broker1"),
          List.of(group0.getFileName().toString(), group1.getFileName().toString()), "one group per broker");
      assertEquals(group0.getParent(), group1.getParent(), "the cluster's groups share a parent");
      assertTrue(group0.getParent().getFileName().toString().startsWith("felix-"), group0.toString());
      for (Path g : List.of(group0, group1)) {
        assertEquals(v2 ? "100000 100000" : "100000", Files.readString(g.resolve(v2 ? "cpu.max" : "cpu.cfs_quota_us"))
            .trim(), "the quota of " + g);
      }
      assertEquals(Optional.empty(), group(ProcessHandle.current().pid(), v2)
          .filter(g -> g.contains("/felix-")), "the caller (the load generator's side) stays outside every budget");
      groups = group0.getParent();
    }
    assertFalse(Files.exists(groups), "'local down' removed " + groups);
  }

  /** The process's path in the cpu hierarchy (v2: the unified one), from /proc/PID/cgroup. */
  private static Optional<String> group(long pid, boolean v2) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "cgroup"))) {
      String[] parts = line.split(":", 3);
      boolean cpu = v2 ? parts[0].equals("0") : List.of(parts[1].split(",")).contains("cpu");
      if (cpu) {
        return Optional.of(parts[2]);
      }
    }
    return Optional.empty();
  }
}
