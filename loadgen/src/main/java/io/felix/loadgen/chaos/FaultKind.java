package io.felix.loadgen.chaos;

import io.felix.loadgen.UsageException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The faults the nemesis injects, one per round; {@code --faults} names them by {@link #wireName()}. */
public enum FaultKind {
  KILL_LEADER("kill-leader", "SIGKILL of the broker leading the most shards; its supervisor restarts it"),
  KILL_SINGLETON_HOST("kill-singleton-host",
      "SIGKILL of the broker hosting the placement singleton (the oldest process); its supervisor restarts it"),
  PAUSE("pause", "SIGSTOP of one broker for longer than the failure detector allows, then SIGCONT"),
  KILL_ALL("kill-all", "SIGKILL of every broker; their supervisors start them again"),
  RESTART_ROLLING("restart-rolling", "graceful restart of every broker, one after the other"),
  RESTART_ALL("restart-all", "graceful stop of every broker, then every broker started again"),
  REPLACE_DISK("replace-disk", "one broker stopped, its data directory wiped, started again"),
  DISK_FULL("disk-full", "one broker's files limited to just above its largest segment (prlimit --fsize: writes past "
      + "it fail as on a full disk) until a replica there fails, held 10 s, then lifted"),
  MOVE_LEADER("move-leader", "one shard's leadership moved to another broker (POST /v1/shard-moves)"),
  DRAIN("drain", "one broker drained (POST /v1/brokers/N/drain) until it leads nothing, then undrained"),
  PARTITION_SINGLETON("partition-singleton", "the broker leading the most shards (not the singleton's host) cut off "
      + "from the singleton's host (cluster and replication ports) for --partition-hold; it still reaches the third broker"),
  PARTITION_REPLICATION("partition-replication", "the broker leading the most shards (not the singleton's host) cut "
      + "off from its followers' replication ports for --partition-hold; its cluster traffic, the singleton's included, passes"),
  PARTITION_ISOLATE("partition-isolate", "the broker leading the most shards (not the singleton's host) cut off "
      + "from every other broker (cluster and replication ports) for --partition-hold; clients still reach it");

  private final String wireName;
  private final String description;

  FaultKind(String wireName, String description) {
    this.wireName = wireName;
    this.description = description;
  }

  public String wireName() {
    return wireName;
  }

  public String description() {
    return description;
  }

  /** Whether this fault cuts the network (iptables, {@link io.felix.loadgen.local.LoopbackPartition}). */
  public boolean partition() {
    return this == PARTITION_SINGLETON || this == PARTITION_REPLICATION || this == PARTITION_ISOLATE;
  }

  /** A comma list of wire names, in the order given; an unknown or repeated name is a usage error. */
  public static List<FaultKind> parseList(String list) throws UsageException {
    List<FaultKind> out = new ArrayList<>();
    for (String word : list.split(",")) {
      String name = word.trim();
      FaultKind kind = Arrays.stream(values()).filter(k -> k.wireName.equals(name)).findFirst()
          .orElseThrow(() -> new UsageException("--faults: unknown fault '" + name + "' (known: " + known() + ")"));
      if (out.contains(kind)) {
        throw new UsageException("--faults: '" + name + "' is listed twice");
      }
      out.add(kind);
    }
    return out;
  }

  public static String known() {
    return Arrays.stream(values()).map(FaultKind::wireName).collect(Collectors.joining(","));
  }
}
