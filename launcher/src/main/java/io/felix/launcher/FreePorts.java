package io.felix.launcher;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** A port range (a FELIX_PORT_OFFSET) free right now, for clusters that may pick their own (tests, benchmarks). */
final class FreePorts {
  /** Ranges tried before a start on free ports gives up (a range free when checked can be taken before use). */
  static final int ATTEMPTS = 5;

  private FreePorts() {}

  /**
   * Offsets in thousands: every port of the range stays below Linux's ephemeral ports (32768 and up). A listener port
   * among them can be taken, while its broker restarts, by any outgoing connection's local port: on CI (af2dea4) a
   * broker SIGKILLed and started again found its Kafka port (36092, offset 27,000) taken and could not start. 0 (the
   * default ports, a developer's own local cluster) is left out.
   */
  private static final int LOWEST = -8;
  private static final int HIGHEST = (32768 - 1 - LocalLayout.CLUSTER_BASE - LocalLayout.MAX_BROKERS) / 1000;

  /** A multiple of 1000 (so the ranges of the port kinds never overlap) whose ports are all free right now. */
  static int offset(int brokers) throws IOException {
    for (int tries = 0; tries < 50; tries++) {
      // LOWEST..-1 or 1..HIGHEST, uniformly: a draw of 0 or more moves one up, past 0.
      int thousands = ThreadLocalRandom.current().nextInt(LOWEST, HIGHEST);
      int offset = 1000 * (thousands >= 0 ? thousands + 1 : thousands);
      if (allFree(new LocalLayout(java.nio.file.Path.of("."), offset), brokers)) {
        return offset;
      }
    }
    throw new IOException("no free port range for " + brokers + " brokers");
  }

  private static boolean allFree(LocalLayout layout, int brokers) {
    if (!free(layout.journalPort())) {
      return false;
    }
    for (int b = 0; b < brokers; b++) {
      for (int port : layout.brokerPorts(b)) {
        if (!free(port)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean free(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return true;
    } catch (IOException inUse) {
      return false;
    }
  }
}
