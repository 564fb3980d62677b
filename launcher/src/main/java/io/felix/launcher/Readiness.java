package io.felix.launcher;

import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Waiting for a local cluster's brokers to answer on their admin port, bounded by FELIX_READY_TIMEOUT, and failing
 * early with the log's tail when a broker process is gone and not coming back.
 */
final class Readiness {
  private static final Pattern BIND_FAILURE =
      Pattern.compile("cannot bind|Failed to bind|BindException|Address already in use");
  private static final String LIVE = "\"state\":\"live\"";

  private final LocalCluster cluster;
  private final BrokerSupervision supervision;
  private final Duration timeout;

  Readiness(LocalCluster cluster, BrokerSupervision supervision, Duration timeout) {
    this.cluster = cluster;
    this.supervision = supervision;
    this.timeout = timeout;
  }

  /**
   * Waits until GET {@code path} on broker N answers 2xx.
   *
   * @throws PortTakenException when the broker's latest start could not bind one of its ports (taken since it was
   *     checked free); the broker is stopped first
   */
  void await(int broker, String path) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    AdminClient admin = cluster.adminClient(broker);
    while (admin.status(path) / 100 != 2) {
      if (!supervision.running(broker)) {
        if (!supervision.supervisorAlive(broker)) {
          throw new IOException("broker " + broker + " is not running and not supervised (stopped?); last lines of"
              + " its log:\n" + LogTail.of(cluster.layout().brokerLog(broker), 20));
        }
        // Any other exit the supervisor answers with a restart; only the lines of the latest start count.
        if (latestStartFailedToBind(broker)) {
          supervision.stop(broker);
          throw new PortTakenException("broker " + broker + " could not bind one of its ports; last lines of its log:\n"
              + LogTail.of(cluster.layout().brokerLog(broker), 20));
        }
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("broker " + broker + ": GET " + path + " not answering after " + timeout.toSeconds()
            + " s; see " + cluster.layout().brokerLog(broker) + "; last lines:\n"
            + LogTail.of(cluster.layout().brokerLog(broker), 20));
      }
      Thread.sleep(500);
    }
  }

  /**
   * Waits until the placement singleton lists {@code brokers} live brokers (GET /v1/brokers): a broker is ready once
   * it holds a table, which can be a moment before the singleton has registered every broker, and a stream with
   * replication factor N created in that moment is refused.
   */
  void awaitRegistered(int brokers) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    AdminClient admin = cluster.adminClient(0);
    long live = 0;
    while (true) {
      try {
        AdminClient.Reply reply = admin.get("/v1/brokers");
        live = reply.ok() ? reply.body().split(Pattern.quote(LIVE), -1).length - 1 : 0;
      } catch (IOException notAnswering) {
        live = 0;
      }
      if (live >= brokers) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the placement singleton lists " + live + " live brokers, not " + brokers + ", after "
            + timeout.toSeconds() + " s");
      }
      Thread.sleep(500);
    }
  }

  private boolean latestStartFailedToBind(int broker) {
    List<String> lines = LogTail.lastLines(cluster.layout().brokerLog(broker), 300);
    int latestStart = 0;
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains("felix supervisor: starting broker")) {
        latestStart = i;
      }
    }
    return lines.subList(latestStart, lines.size()).stream().anyMatch(l -> BIND_FAILURE.matcher(l).find());
  }
}
