package io.felix.loadgen.chaos;

import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeRun;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.Summary;
import io.felix.loadgen.Verifier;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * One round: ledgered producers run at a steady rate; the nemesis injects one fault; the round times how long
 * until every shard is writable, waits until the cluster is whole again, stops the producers and reads the
 * whole stream back against their ledger.
 */
final class ChaosRound {
  /** Load before the fault, so that it hits records in flight, and after the cluster is whole again. */
  private static final Duration STEADY = Duration.ofSeconds(3);
  private static final Duration WHOLE_TIMEOUT = Duration.ofSeconds(180);

  private final ChaosCluster cluster;
  private final Nemesis nemesis;
  private final ChaosOptions options;
  private final List<HostPort> bootstrap;

  ChaosRound(ChaosCluster cluster, Nemesis nemesis, ChaosOptions options) {
    this.cluster = cluster;
    this.nemesis = nemesis;
    this.options = options;
    this.bootstrap = HostPort.parseList(cluster.local().bootstrap());
  }

  RoundResult run(FaultKind kind) throws InterruptedException {
    ProduceRun load = ProduceRun.steady(bootstrap, cluster.stream(), options.rate(), options.producers());
    FutureTask<Summary> producing = new FutureTask<>(load::produce);
    new Thread(producing, "chaos-load").start();
    String what = kind.description();
    String failure = null;
    WritabilityProbe.Writability writability = new WritabilityProbe.Writability(options.writableWithin(), List.of());
    try {
      Thread.sleep(STEADY.toMillis());
      what = nemesis.inject(kind);
      writability = new WritabilityProbe(bootstrap, cluster.stream(), options.shards()).await(options.writableWithin());
      if (!writability.inTime()) {
        failure = "shards " + writability.notWritable() + " not writable within "
            + options.writableWithin().toSeconds() + " s";
      }
      cluster.awaitWhole(WHOLE_TIMEOUT);
      Thread.sleep(STEADY.toMillis());
    } catch (IOException e) {
      failure = e.getMessage();
    } finally {
      load.stop();
    }
    Summary summary;
    try {
      summary = producing.get();
    } catch (ExecutionException e) {
      return new RoundResult(kind, what, 0, 0, 0, 0, writability.time(), writability.inTime(),
          join(failure, "the producers failed: " + e.getCause().getMessage()));
    }
    try {
      Verifier.Report report = ConsumeRun.verifyAgainst(bootstrap, cluster.stream(), summary);
      long lost = 0;
      long duplicated = 0;
      long disordered = report.corrupt();
      for (Verifier.ProducerReport p : report.producers()) {
        lost += p.missing();
        duplicated += p.duplicated();
        disordered += p.outOfOrder() + p.unexpected();
        if (p.missing() > 0) {
          failure = join(failure, "producer " + p.producer() + " lost " + p.missing() + " (first "
              + p.missingSample() + ")");
        }
      }
      return new RoundResult(kind, what, summary.acked(), lost, duplicated, disordered, writability.time(),
          writability.inTime(), failure);
    } catch (IllegalStateException unreadable) {
      return new RoundResult(kind, what, summary.acked(), 0, 0, 0, writability.time(), writability.inTime(),
          join(failure, "reading the stream back failed: " + unreadable.getMessage()));
    }
  }

  private static String join(String first, String second) {
    return first == null ? second : first + "; " + second;
  }
}
