package io.felix.loadgen.bench;

import java.nio.file.Path;
import java.time.Duration;
import io.felix.loadgen.chaos.FailoverBench;
import java.util.List;

/**
 * {@code loadgen bench placement [options]}: the placement benchmark of docs/placement.md (see
 * {@link PlacementBench}); {@code loadgen bench failover [options]}: failover times under SIGKILL (see
 * {@link FailoverBench}).
 *
 * <pre>
 *   --strategy cluster-share|stream-aware|both   (default both: cluster-share first, then stream-aware)
 *   --duration 15s         load per strategy
 *   --recreates 3          times the 12-shard stream is deleted and created again after its first creation
 *   --record-size 1024 --producers 4
 *   --broker-jar PATH      default: bin/felix's own, broker/target/felix-broker.jar (rebuilt when stale)
 *   --dir DIR              where the brokers keep data and logs (default data/bench; DIR/STRATEGY is wiped first)
 * </pre>
 *
 * The brokers are started and stopped with {@code bin/felix local up/down} (found through FELIX_HOME, which
 * {@code bin/felix bench} sets, or upward from the working directory); FELIX_PORT_OFFSET picks their ports.
 */
public final class BenchCommand {

  private BenchCommand() {}

  /**
   * Runs {@code bench ARGS} (the word "bench" already consumed); returns the process exit status: 0 done, 1 the
   * benchmark failed, 2 bad usage (the message names the option). The bench's own report goes to stdout.
   */
  public static int run(String[] args, java.io.PrintStream err) {
    boolean failover = args.length > 0 && args[0].equals("failover");
    if (args.length == 0 || !(args[0].equals("placement") || failover)) {
      err.println("usage: loadgen bench placement [--strategy cluster-share|stream-aware|both] [--duration 15s]"
          + " [--recreates 3] [--record-size 1024] [--producers 4] [--broker-jar PATH] [--dir DIR]");
      err.println("       loadgen bench failover [--victim leader|singleton-host] [--kills 10] [--shards 6]"
          + " [--rate 500] [--settle 3s] [--bound 6s] [--dir DIR]");
      return 2;
    }
    try {
      if (failover) {
        return new FailoverBench(parseFailover(args), java.util.Map.of(), System.out).run() ? 0 : 1;
      }
      PlacementBench.Settings settings = parse(args);
      new PlacementBench(settings).run();
      return 0;
    } catch (IllegalArgumentException e) {
      err.println("bench: " + e.getMessage());
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("bench interrupted");
      return 1;
    } catch (Exception e) {
      err.println("bench failed: " + e.getMessage());
      return 1;
    }
  }

  static PlacementBench.Settings parse(String[] args) {
    List<String> strategies = List.of("cluster-share", "stream-aware");
    Duration load = Duration.ofSeconds(15);
    int recreates = 3;
    int recordSize = 1024;
    int producers = 4;
    Path jar = null;
    Path dir = Path.of("data", "bench");
    for (int i = 1; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--strategy" -> strategies = switch (value) {
          case "both" -> List.of("cluster-share", "stream-aware");
          case "cluster-share", "stream-aware" -> List.of(value);
          default -> throw new IllegalArgumentException("--strategy must be cluster-share, stream-aware or both, got " + value);
        };
        case "--duration" -> load = seconds(option, value);
        case "--recreates" -> recreates = positiveOrZero(option, value);
        case "--record-size" -> recordSize = positiveOrZero(option, value);
        case "--producers" -> producers = positiveOrZero(option, value);
        case "--broker-jar" -> jar = Path.of(value);
        case "--dir" -> dir = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    if (producers == 0 || recordSize == 0) {
      throw new IllegalArgumentException("--producers and --record-size must be at least 1");
    }
    return new PlacementBench.Settings(jar, dir, strategies, recreates, load,
        recordSize, producers, Duration.ofSeconds(120));
  }

  /**
   * {@code bench failover} options. The default bound is twice the goal: 6 s when the killed broker did not host
   * the singleton, 10 s when it did.
   */
  static FailoverBench.Settings parseFailover(String[] args) {
    FailoverBench.Victim victim = FailoverBench.Victim.LEADER;
    int kills = 10;
    int shards = 6;
    long rate = 500;
    Duration settle = Duration.ofSeconds(3);
    Duration bound = null;
    Path dir = Path.of("data", "bench-failover");
    for (int i = 1; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        throw new IllegalArgumentException(option + " needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--victim" -> victim = FailoverBench.Victim.fromWireName(value);
        case "--kills" -> kills = positiveOrZero(option, value);
        case "--shards" -> shards = positiveOrZero(option, value);
        case "--rate" -> rate = positiveOrZero(option, value);
        case "--settle" -> settle = seconds(option, value);
        case "--bound" -> bound = seconds(option, value);
        case "--dir" -> dir = Path.of(value);
        default -> throw new IllegalArgumentException("unknown option " + option);
      }
    }
    if (kills == 0 || shards == 0 || rate == 0) {
      throw new IllegalArgumentException("--kills, --shards and --rate must be at least 1");
    }
    if (bound == null) {
      bound = Duration.ofSeconds(victim == FailoverBench.Victim.LEADER ? 6 : 10);
    }
    return new FailoverBench.Settings(dir, victim, kills, shards, rate, settle, bound);
  }

  private static Duration seconds(String option, String value) {
    if (!value.matches("[1-9][0-9]*s?")) {
      throw new IllegalArgumentException(option + " must be a whole number of seconds like 15s, got " + value);
    }
    return Duration.ofSeconds(Long.parseLong(value.replace("s", "")));
  }

  private static int positiveOrZero(String option, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " must be a number >= 0, got " + value);
    }
  }
}
