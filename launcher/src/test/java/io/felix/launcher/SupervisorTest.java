package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The supervisor's loop with a real child process standing in for the broker (a shell that prints a line and exits
 * with 3): it is started again after the backoff, its output and pid go where the broker's would, and the stopped
 * mark ends the loop.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SupervisorTest {

  @TempDir Path dir;

  @Test
  void anExitedProcessIsStartedAgainAfterTheBackoffUntilItIsMarkedStopped() throws Exception {
    LocalLayout layout = new LocalLayout(dir, 0);
    Files.createDirectories(layout.brokerDir(0));
    ByteArrayOutputStream said = new ByteArrayOutputStream();
    PrintStream log = new PrintStream(said, true, StandardCharsets.UTF_8);
    Supervisor supervisor = new Supervisor(layout, 0, List.of("sh", "-c", "echo run $$; exit 3"), log);
    Thread loop = new Thread(() -> {
      try {
        supervisor.run();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    loop.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!said.toString(StandardCharsets.UTF_8).contains("restarting in 2s") && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    Files.writeString(layout.stoppedMark(0), "");
    loop.join(10_000);
    assertFalse(loop.isAlive(), "the stopped mark ends the loop");

    List<String> lines = said.toString(StandardCharsets.UTF_8).lines()
        .map(l -> l.substring(l.indexOf(" felix supervisor: ") + 1)).toList();
    assertEquals("felix supervisor: starting broker 0", lines.get(0));
    assertTrue(lines.get(1).matches("felix supervisor: broker 0 \\(pid \\d+\\) exited with status 3; restarting in 1s"),
        lines.toString());
    assertEquals("felix supervisor: starting broker 0", lines.get(2));
    assertTrue(lines.get(3).matches("felix supervisor: broker 0 \\(pid \\d+\\) exited with status 3; restarting in 2s"),
        lines.toString());
    assertEquals("felix supervisor: broker 0 is marked stopped; not restarting it", lines.get(lines.size() - 1));
    // The child's output is appended to the broker's log; the pid file names its latest process.
    List<String> runs = Files.readAllLines(layout.brokerLog(0));
    assertTrue(runs.size() >= 2 && runs.stream().allMatch(l -> l.startsWith("run ")), runs.toString());
    assertTrue(runs.contains("run " + Files.readString(layout.brokerPidFile(0)).trim()), runs.toString());
  }
}
