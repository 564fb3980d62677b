package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import io.felix.protocol.client.Acks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A SIGKILLed placement singleton host is removed from the cluster on the data plane's evidence, not the failure
 * detector's: the brokers' failure detector is set to tolerate 40 s of silence, so without the quarantine that
 * follows the closed-peer down (ClosedPeerDowner) Pekko would remove the killed member, and the singleton could
 * move, only after 40 s. The shards the killed broker led must be led elsewhere well before that.
 */
@Tag("process")
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES) // a loaded 2-core machine: brokers start slowly
class SingletonHostKillProcessTest {

  private static final String STREAM = "singleton-kill";
  private static final int SHARDS = 6;
  private static final Duration DETECTOR_PAUSE = Duration.ofSeconds(40);
  private static final List<String> ANSWERED_BEFORE_THE_KILL = List.of("answered-1", "answered-2", "answered-3");

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir; // the brokers' logs stay for a failure

  @Test
  void theSingletonMovesAndItsHostsShardsFailOverLongBeforeTheFailureDetectorWouldMarkItUnreachable()
      throws Exception {
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"), UpOptions.brokers(3),
        LauncherEnvironment.brokersFromTestClasspath("256m",
            "FELIX_READY_TIMEOUT", "240",
            // System properties are the brokers' first config layer; every broker gets the long pause.
            "JAVA_TOOL_OPTIONS", "-Dfelix.cluster.acceptable-heartbeat-pause=" + DETECTOR_PAUSE.toSeconds() + "s"))) {
      new AdminApi(launcher.adminPort(0)).createStream(STREAM, SHARDS, 3);
      new AdminApi(launcher.adminPort(0)).awaitLed(STREAM, SHARDS, -1, Duration.ofSeconds(60));
      // Followers that have not heard from their leader yet cannot vouch for the shard, and a failover would wait
      // for the killed leader to come back (FailoverRounds); the test is about the singleton's move, so it kills a
      // settled stream: every replica in sync and a record on every shard acknowledged by all three replicas.
      new AdminApi(launcher.adminPort(0)).awaitInSync(STREAM, Duration.ofSeconds(60));
      try (FelixClient client = new FelixClient(ClientSettings.builder(launcher.bootstrap()).acks(Acks.ALL)
          .linger(Duration.ofMillis(1)).retries(50).retryBackoffMax(Duration.ofMillis(200))
          .requestTimeout(Duration.ofSeconds(10)).ackTimeout(Duration.ofSeconds(5))
          .deliveryTimeout(Duration.ofSeconds(60)).build())) {
        for (int shard = 0; shard < SHARDS; shard++) {
          client.produce(STREAM, shard, "k".getBytes(), "settled".getBytes(), List.of()).join();
        }
      }
      int host = SharedLocalCluster.singletonHost(launcher);
      AdminApi survivor = new AdminApi(launcher.adminPort((host + 1) % 3));
      // Three decisions answered just before the kill: the next singleton recovers each from the journal (with H2's
      // default write delay, an answered event could still sit in a buffer of the killed process).
      for (String answered : ANSWERED_BEFORE_THE_KILL) {
        new AdminApi(launcher.adminPort(host)).createStream(answered, 1, 3);
      }

      // Kept down: restarted by its supervisor, the broker would rejoin within seconds and placement would move
      // leaders back to it, so the survivors' view could show it leading again before a poll saw the failover.
      launcher.killAndKeepDown(host);
      long killedAt = System.nanoTime();
      survivor.awaitLed(STREAM, SHARDS, host, DETECTOR_PAUSE);
      long ms = (System.nanoTime() - killedAt) / 1_000_000;
      System.out.printf("singleton host %d SIGKILLed: every shard led by another broker after %d ms%n", host, ms);
      assertTrue(ms < 20_000, "the shards of the killed singleton host were led elsewhere only after " + ms + " ms");
      assertFalse(launcher.running(host), "broker " + host + " was killed to stay down, and runs");
      for (String answered : ANSWERED_BEFORE_THE_KILL) {
        assertNotNull(survivor.streamDetail(answered), "stream " + answered + " was created and answered before the "
            + "kill, and the new singleton does not know it");
      }
    }
  }
}
