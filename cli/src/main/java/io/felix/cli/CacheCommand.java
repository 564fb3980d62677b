package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.loadgen.CacheRun;
import io.felix.protocol.client.Acks;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code felix perf cache --cache NAME [options]} (also {@code felix cache ...}): the cache workload of the load
 * generator ({@link CacheRun}).
 */
@Command(name = "cache", mixinStandardHelpOptions = true, sortOptions = false,
    description = "Cache workload: gets and puts of --key-space keys at --rate for --duration; gets/s, puts/s and "
        + "their latency percentiles; --verify checks that no get returns an entry older than the latest "
        + "acknowledged put of its key.")
final class CacheCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Mixin
  Endpoints endpoints;

  @Option(names = "--cache", paramLabel = "NAME", required = true, description = "the cache (POST /v1/caches)")
  String cache;

  @Option(names = "--key-space", converter = Converters.WholeNumber.class, defaultValue = "10000",
      description = "keys k0..k{N-1}, chosen uniformly (default ${DEFAULT-VALUE})")
  long keySpace;

  @Option(names = "--get-ratio", defaultValue = "0.9",
      description = "share of operations that are gets, 0 to 1 (default ${DEFAULT-VALUE})")
  double getRatio;

  @Option(names = "--value-size", defaultValue = "100", description = "bytes per value (default ${DEFAULT-VALUE})")
  int valueSize;

  @Option(names = "--rate", converter = Converters.WholeNumber.class, defaultValue = "0",
      description = "operations per second over all producers; 0 = unbounded (default)")
  long rate;

  @Option(names = "--duration", converter = Converters.PositiveDuration.class, defaultValue = "30s",
      description = "how long to run (default ${DEFAULT-VALUE})")
  Duration duration;

  @Option(names = "--producers", defaultValue = "4", description = "threads issuing operations (default "
      + "${DEFAULT-VALUE})")
  int producers;

  @Option(names = "--max-outstanding", defaultValue = "1000",
      description = "unanswered operations per producer (default ${DEFAULT-VALUE})")
  int maxOutstanding;

  @Option(names = "--acks", converter = Converters.AcksWord.class, defaultValue = "quorum",
      description = "acks of puts: quorum, all or leader (default ${DEFAULT-VALUE}; --verify needs quorum or all)")
  Acks acks;

  @Option(names = "--mode", converter = Converters.ModeWord.class, defaultValue = "cluster",
      description = "cluster (each request to its shard's leader) or plain (one broker forwards); default "
          + "${DEFAULT-VALUE}")
  ClientMode mode;

  @Option(names = "--verify", description = "check every get against the latest acknowledged put of its key")
  boolean verify;

  @Override
  public Integer call() throws Exception {
    if (getRatio < 0 || getRatio > 1) {
      throw Ranges.usage(spec, "--get-ratio: expected a number from 0 to 1, got " + getRatio);
    }
    if (verify && acks == Acks.LEADER) {
      throw Ranges.usage(spec, "--verify needs --acks quorum or all: a put acknowledged by the leader alone may be "
          + "lost in a failover, and is not readable until committed");
    }
    CacheRun.Options options = new CacheRun.Options(endpoints.bootstrap(), cache, mode, acks,
        Ranges.within(spec, "--key-space", keySpace, 1, Integer.MAX_VALUE), getRatio,
        Ranges.within(spec, "--value-size", valueSize, 20, 1024 * 1024),
        Ranges.within(spec, "--rate", rate, 0, 100_000_000), duration,
        Ranges.within(spec, "--producers", producers, 1, 1024),
        Ranges.within(spec, "--max-outstanding", maxOutstanding, 1, 1_000_000), verify);
    return new CacheRun(options, Felix.out(spec)).run();
  }
}
