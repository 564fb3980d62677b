package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.BrokerCluster;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/felix local}'s supervisor: a SIGKILLed broker process is started again and rejoins the cluster; a
 * broker stopped with {@code local stop} stays down (past the supervisor's backoff) until {@code local start}.
 */
@Tag("process")
@Timeout(value = 8, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class SupervisorProcessTest {

  @TempDir Path dir;

  @Test
  void aKilledBrokerIsRestartedAndRejoinsWhileAStoppedOneStaysDown() throws Exception {
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"), UpOptions.brokers(2),
        LauncherEnvironment.brokersFromTestClasspath("256m",
            // A broker that never gets ready fails 'local start' with its log, well before the test's guard.
            "FELIX_READY_TIMEOUT", "150"))) {
      Path log = launcher.dir().resolve("broker1").resolve("broker.log");
      long killed = launcher.pid(1);
      launcher.signal(1, "KILL");
      BrokerCluster.await(Duration.ofSeconds(90), "broker 1 restarted, ready and listed live by the singleton",
          () -> pid(launcher) != killed && ready(launcher, 1) && liveBrokers(launcher) == 2);
      assertTrue(Files.readString(log).contains(
          "felix supervisor: broker 1 (pid " + killed + ") exited with status 137 (SIGKILL); restarting in 1s"));

      long stopped = launcher.pid(1);
      launcher.stop(1);
      Thread.sleep(4_000); // longer than the supervisor's backoff: it would have started the broker by now
      assertFalse(ProcessHandle.of(stopped).map(ProcessHandle::isAlive).orElse(false), "the stopped broker's process");
      assertEquals(-1, launcher.admin(1).status("/health"), "nothing answers on the stopped broker's admin port");
      assertTrue(Files.exists(launcher.dir().resolve("broker1").resolve("stopped")));
      assertTrue(launcher.status().contains("stopped"));

      launcher.start(1);
      assertFalse(Files.exists(launcher.dir().resolve("broker1").resolve("stopped")));
      BrokerCluster.await(Duration.ofSeconds(60), "broker 1 listed live again",
          () -> liveBrokers(launcher) == 2);
    }
  }

  private static long pid(LocalCluster launcher) {
    try {
      return launcher.pid(1);
    } catch (IOException | NumberFormatException betweenRestarts) {
      return -1;
    }
  }

  private static boolean ready(LocalCluster launcher, int broker) {
    try {
      return launcher.admin(broker).status("/ready") == 200;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static long liveBrokers(LocalCluster launcher) {
    try {
      String brokers = launcher.admin(0).getOk("/v1/brokers");
      return brokers.split("\"state\":\"live\"", -1).length - 1;
    } catch (IOException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }
}
