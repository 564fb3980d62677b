package io.felix.loadgen;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The load generator's entry point: {@code produce}, {@code consume}, {@code bench}, {@code chaos}.
 *
 * <p>Exit codes: 0 success; 1 the run failed (nothing acknowledged, verification found a problem, stream
 * unreachable); 2 bad usage (the message names the flag) or a subcommand not available.
 */
public final class LoadGen {
  static final String USAGE = String.join("\n",
      "usage: felix-loadgen <command> [flags]",
      "  produce --bootstrap HOST:PORT[,...] --stream NAME [--mode cluster|plain] [--record-size 1024]",
      "          [--rate N|0] [--duration 30s | --records N] [--producers 4] [--acks quorum|all|leader]",
      "          [--key-space N] [--json FILE] [--linger 5ms] [--batch-size 262144] [--max-outstanding 10000]",
      "          [--no-idempotence]",
      "  consume --bootstrap HOST:PORT[,...] --stream NAME [--mode cluster|plain] [--from-beginning]",
      "          [--verify [--expect PRODUCE_JSON]] [--json FILE] [--idle 5s] [--max-bytes 1048576]",
      "  bench placement [--strategy cluster-share|stream-aware|both] [--duration 15s] [--recreates 3]",
      "          [--record-size 1024] [--producers 4] [--broker-jar PATH] [--dir DIR]",
      "  bench failover [--victim leader|singleton-host] [--kills 10] [--shards 6] [--rate 500] [--settle 3s]",
      "          [--bound 6s] [--dir data/bench-failover]",
      "  chaos [--duration 3m] [--faults kill-leader,kill-all,...] [--rate 200] [--seed N] [--brokers 3]",
      "          [--shards 6] [--producers 2] [--writable-within 30s] [--dir data/chaos]");

  private LoadGen() {}

  public static void main(String[] args) {
    int code = run(Arrays.asList(args), System.out, System.err);
    System.out.flush();
    System.exit(code);
  }

  static int run(List<String> args, PrintStream out, PrintStream err) {
    if (args.isEmpty() || args.get(0).equals("--help") || args.get(0).equals("help")) {
      (args.isEmpty() ? err : out).println(USAGE);
      return args.isEmpty() ? 2 : 0;
    }
    List<String> rest = args.subList(1, args.size());
    try {
      switch (args.get(0)) {
        case "produce":
          return new ProduceRun(ProduceOptions.parse(rest), out).run();
        case "consume":
          return new ConsumeRun(ConsumeOptions.parse(rest), out).run();
        case "chaos":
          return io.felix.loadgen.chaos.ChaosCommand.run(rest, out, err);
        case "bench":
          return io.felix.loadgen.bench.BenchCommand.run(rest.toArray(String[]::new), err);
        default:
          throw new UsageException("unknown command '" + args.get(0) + "'");
      }
    } catch (UsageException e) {
      err.println(args.get(0) + ": " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (java.io.IOException e) {
      err.println(args.get(0) + ": " + e.getMessage());
      return 1;
    }
  }
}
