package io.felix.loadgen.chaos;

import io.felix.launcher.LocalCluster;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The phases of one broker's failover, read from the surviving brokers' logs ({@code brokerN/broker.log}, lines
 * starting with an ISO-8601 timestamp such as {@code 2026-12-02T23:00:33.089Z}, written since {@link #mark}): the
 * first evidence of the loss (a broker's replication connections suspect it, or Pekko marks it unreachable), the
 * member marked down, removed by Pekko's leader, the placement singleton started on another broker and recovered
 * from the journal (when the broker hosted it), the first failover round fencing one of its shards, and the last
 * promotion of one of its shards stored in the journal. The broker processes run on this machine, so their clock
 * is this process's; the log lines are the broker's and Pekko's own (their texts are matched here).
 */
final class BrokerLogPhases {
  private static final Pattern TIME =
      Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(?:Z|[+-]\\d\\d:\\d\\d)) ");
  private static final String SINGLETON_STARTED = "Singleton manager starting singleton actor";
  private static final String SINGLETON_RECOVERED = "Placement singleton recovered on";
  private static final Pattern SUSPECTED = Pattern.compile("Replication connections suspect brokers \\[([0-9, ]*)]");

  /** Times from the kill; empty when the logs show no such line. */
  record Phases(Optional<Duration> detected, Optional<Duration> downed, Optional<Duration> removed,
      Optional<Duration> singletonStarted, Optional<Duration> recovered, Optional<Duration> fenced,
      Optional<Duration> promoted) {}

  private final LocalCluster local;
  private final long[] offsets;

  private BrokerLogPhases(LocalCluster local, long[] offsets) {
    this.local = local;
    this.offsets = offsets;
  }

  /** Remembers where every broker's log ends now: only lines written later count. */
  static BrokerLogPhases mark(LocalCluster local) throws IOException {
    long[] offsets = new long[local.brokers()];
    for (int b = 0; b < offsets.length; b++) {
      Path log = log(local, b);
      offsets[b] = Files.exists(log) ? Files.size(log) : 0;
    }
    return new BrokerLogPhases(local, offsets);
  }

  /**
   * @param victim the killed broker
   * @param shards the shards of {@code stream} it led
   * @param killedAt the wall-clock time of the kill
   */
  Phases read(int victim, String stream, List<Integer> shards, Instant killedAt) throws IOException {
    String address = "pekko://felix@127.0.0.1:" + local.clusterPort(victim);
    String unreachable = "Marking node as UNREACHABLE [Member(" + address + ",";
    String down = "Marking node [" + address + "] as [Down]";
    String removed = "Leader is removing unreachable node [" + address + "]";
    List<String> fence = shards.stream().map(s -> "Shard " + stream + "/" + s + ": failover round, fencing").toList();
    List<String> promoted = shards.stream().map(s -> "Decided LeaderPromoted[shard=" + stream + "/" + s + ",").toList();
    Duration detected = null;
    Duration downed = null;
    Duration removal = null;
    Duration singletonStarted = null;
    Duration recovered = null;
    Duration fenced = null;
    Duration lastPromoted = null;
    for (int b = 0; b < offsets.length; b++) {
      if (b == victim) {
        continue;
      }
      for (String line : linesSince(b)) {
        Matcher time = TIME.matcher(line);
        if (!time.find()) {
          continue;
        }
        Duration at;
        try {
          at = Duration.between(killedAt, OffsetDateTime.parse(time.group(1)).toInstant());
        } catch (DateTimeParseException e) {
          continue;
        }
        if (at.isNegative()) {
          continue;
        }
        if (line.contains(unreachable) || suspects(line, victim)) {
          detected = earliest(detected, at);
        }
        if (line.contains(down)) {
          downed = earliest(downed, at);
        }
        if (line.contains(removed)) {
          removal = earliest(removal, at);
        }
        if (line.contains(SINGLETON_STARTED)) {
          singletonStarted = earliest(singletonStarted, at);
        }
        if (line.contains(SINGLETON_RECOVERED)) {
          recovered = earliest(recovered, at);
        }
        if (fence.stream().anyMatch(line::contains)) {
          fenced = earliest(fenced, at);
        }
        if (promoted.stream().anyMatch(line::contains)) {
          lastPromoted = lastPromoted == null || at.compareTo(lastPromoted) > 0 ? at : lastPromoted;
        }
      }
    }
    return new Phases(Optional.ofNullable(detected), Optional.ofNullable(downed), Optional.ofNullable(removal),
        Optional.ofNullable(singletonStarted), Optional.ofNullable(recovered), Optional.ofNullable(fenced),
        Optional.ofNullable(lastPromoted));
  }

  private static boolean suspects(String line, int victim) {
    Matcher m = SUSPECTED.matcher(line);
    if (!m.find()) {
      return false;
    }
    for (String id : m.group(1).split(",")) {
      if (!id.isBlank() && Integer.parseInt(id.trim()) == victim) {
        return true;
      }
    }
    return false;
  }

  private static Duration earliest(Duration current, Duration candidate) {
    return current == null || candidate.compareTo(current) < 0 ? candidate : current;
  }

  private List<String> linesSince(int broker) throws IOException {
    Path log = log(local, broker);
    if (!Files.exists(log)) {
      return List.of();
    }
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long from = Math.min(offsets[broker], file.length());
      byte[] bytes = new byte[(int) (file.length() - from)];
      file.seek(from);
      file.readFully(bytes);
      return new ArrayList<>(List.of(new String(bytes, StandardCharsets.UTF_8).split("\n")));
    }
  }

  private static Path log(LocalCluster local, int broker) {
    return local.dir().resolve("broker" + broker).resolve("broker.log");
  }
}
