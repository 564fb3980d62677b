package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's process tells its launcher which of the two happened: it serves (a line with its own pid, since the
 * port may be held by another cluster's journal started at the same moment), or its port was taken (an exit status
 * of its own, so the launcher tries another range instead of starting brokers against someone else's journal).
 */
class JournalServerTest {

  @TempDir Path dir;

  @Test
  void aTakenPortEndsTheJournalWithItsOwnExitStatus() throws Exception {
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Process journal = start(taken.getLocalPort());
      assertTrue(journal.waitFor(30, TimeUnit.SECONDS), "the journal did not exit");
      assertEquals(JournalServer.PORT_TAKEN, journal.exitValue(), Files.readString(dir.resolve("journal.log")));
      assertTrue(Files.readString(dir.resolve("journal.log"))
          .contains("port " + taken.getLocalPort() + " is taken by another process"));
    }
  }

  @Test
  void aServingJournalSaysSoWithItsPid() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Process journal = start(port);
    try {
      String listening = JournalServer.listeningLine(journal.pid());
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!Files.readString(dir.resolve("journal.log")).contains(listening) && System.nanoTime() < deadline) {
        assertTrue(journal.isAlive(), Files.readString(dir.resolve("journal.log")));
        Thread.sleep(50);
      }
      assertTrue(Files.readString(dir.resolve("journal.log")).contains(listening + " tcp://"),
          Files.readString(dir.resolve("journal.log")));
      assertTrue(Ports.inUse(port));
    } finally {
      journal.destroyForcibly().waitFor();
    }
  }

  private Process start(int port) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    return new ProcessBuilder(List.of(java, "-Xmx64m", "-cp", System.getProperty("java.class.path"),
        JournalServer.class.getName(), dir.toString(), Integer.toString(port)))
        .redirectErrorStream(true).redirectOutput(dir.resolve("journal.log").toFile()).start();
  }
}
