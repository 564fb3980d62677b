package io.felix.loadgen.chaos;

import io.felix.client.HostPort;
import io.felix.loadgen.CacheLedger;
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
 * whole stream back against their ledger. A cache writer runs beside the producers through the fault; once it is
 * stopped, every key of the cache is read back against its ledger. Then every replica of the stream and the cache
 * must hold its leader's log below the commit offset ({@link ReplicaDigestCheck}). Whole means every broker ready and
 * live, and each live one leading its share of the stream's shards again.
 */
final class ChaosRound {
  /** Load before the fault, so that it hits records in flight, and after the cluster is whole again. */
  private static final Duration STEADY = Duration.ofSeconds(3);
  private static final Duration WHOLE_TIMEOUT = Duration.ofSeconds(180);
  /** How long a whole cluster has to give each live broker its share of leaders back (rebalancing moves one by one). */
  private static final Duration LEADER_SHARE_TIMEOUT = Duration.ofSeconds(60);
  /** How long every replica has, once the round is over, to have its log up to its leader's commit offset. */
  private static final Duration DIGEST_TIMEOUT = Duration.ofSeconds(30);

  private final ChaosCluster cluster;
  private final Nemesis nemesis;
  private final ChaosOptions options;
  private final List<HostPort> bootstrap;
  private final CacheLedger cacheLedger;

  /** @param cacheLedger the run's cache ledger, kept across rounds */
  ChaosRound(ChaosCluster cluster, Nemesis nemesis, ChaosOptions options, CacheLedger cacheLedger) {
    this.cluster = cluster;
    this.nemesis = nemesis;
    this.options = options;
    this.bootstrap = HostPort.parseList(cluster.local().bootstrap());
    this.cacheLedger = cacheLedger;
  }

  RoundResult run(FaultKind kind) throws InterruptedException {
    ProduceRun load = ProduceRun.steady(bootstrap, cluster.stream(), options.rate(), options.producers());
    FutureTask<Summary> producing = new FutureTask<>(load::produce);
    new Thread(producing, "chaos-load").start();
    RoundResult round;
    try (CacheWriter cacheWriter = new CacheWriter(bootstrap, ChaosRun.CACHE, cacheLedger)) {
      cacheWriter.start();
      try {
        round = fault(kind);
      } finally {
        load.stop();
      }
      round = verifyStream(checkCache(round, cacheWriter), producing);
    }
    return checkReplicas(round);
  }

  /** Injects the fault under load and waits until every shard is writable and the cluster whole again. */
  private RoundResult fault(FaultKind kind) throws InterruptedException {
    String what = kind.description();
    String failure = null;
    Duration timeToWritable = Duration.ZERO;
    boolean writableInTime = false; // until probed
    try {
      Thread.sleep(STEADY.toMillis());
      what = nemesis.inject(kind);
      // Probed past the bound, so that a late shard's time is measured, not just found late.
      WritabilityProbe.Writability writability =
          new WritabilityProbe(bootstrap, cluster.stream(), options.shards()).await(WHOLE_TIMEOUT);
      what += nemesis.release(kind);
      timeToWritable = writability.time();
      writableInTime = writability.within(options.writableWithin());
      if (!writability.notWritable().isEmpty()) {
        failure = "shards " + writability.notWritable() + " not writable " + WHOLE_TIMEOUT.toSeconds() + " s on";
      }
      cluster.awaitWhole(WHOLE_TIMEOUT);
      Duration toLeaderShare = cluster.awaitLeaderShare(LEADER_SHARE_TIMEOUT);
      what += String.format("; every broker led its share again %.1f s after the cluster was whole",
          toLeaderShare.toMillis() / 1000.0);
      Thread.sleep(STEADY.toMillis());
    } catch (IOException e) {
      failure = e.getMessage();
    }
    return new RoundResult(kind, what, 0, 0, 0, 0, timeToWritable, writableInTime, CacheFigures.NONE, 0, failure);
  }

  /** The round with the cache's figures: the writer stopped, every put answered, every key read back. */
  private RoundResult checkCache(RoundResult round, CacheWriter cacheWriter) throws InterruptedException {
    try {
      cacheWriter.stop();
      CacheFigures cache = cacheWriter.readBack(WHOLE_TIMEOUT);
      return round.withCache(cache, cache.ok() ? null : "cache: " + cache.keysLost() + " keys lost, "
          + cache.keysCorrupt() + " corrupt (first: " + cache.firstProblem() + ")");
    } catch (IOException e) {
      return round.withCache(CacheFigures.NONE, e.getMessage());
    }
  }

  /** The round's result with the stream's figures: its producers' ledger against the stream read back. */
  private RoundResult verifyStream(RoundResult round, FutureTask<Summary> producing) throws InterruptedException {
    Summary summary;
    try {
      summary = producing.get();
    } catch (ExecutionException e) {
      return round.withStream(0, 0, 0, 0, "the producers failed: " + e.getCause().getMessage());
    }
    try {
      Verifier.Report report = ConsumeRun.verifyAgainst(bootstrap, cluster.stream(), summary);
      long lost = 0;
      long duplicated = 0;
      long disordered = report.corrupt();
      String failure = null;
      for (Verifier.ProducerReport p : report.producers()) {
        lost += p.missing();
        duplicated += p.duplicated();
        disordered += p.outOfOrder() + p.unexpected();
        if (p.missing() > 0) {
          failure = join(failure, "producer " + p.producer() + " lost " + p.missing() + " (first "
              + p.missingSample() + ")");
        }
      }
      return round.withStream(summary.acked(), lost, duplicated, disordered, failure);
    } catch (IllegalStateException unreadable) {
      return round.withStream(summary.acked(), 0, 0, 0, "reading the stream back failed: "
          + unreadable.getMessage());
    }
  }

  /**
   * The round with its replica check: with the producers and the cache writer stopped, every replica of every shard
   * of the stream and the cache must hold its leader's log below the commit offset (the same digest), within the
   * bound.
   */
  private RoundResult checkReplicas(RoundResult round) throws InterruptedException {
    ReplicaDigestCheck.Verdict verdict =
        cluster.awaitReplicaDigests(List.of(cluster.stream(), ChaosRun.CACHE), DIGEST_TIMEOUT);
    String problem = verdict.problem();
    return round.withReplicas(verdict.diverged().size(), problem == null ? null
        : "replica check" + (verdict.settled() ? "" : " " + DIGEST_TIMEOUT.toSeconds() + " s on") + ": " + problem);
  }

  static String join(String first, String second) {
    return first == null ? second : second == null ? first : first + "; " + second;
  }
}
