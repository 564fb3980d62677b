package io.felix.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;

/**
 * The placement journal's process of a local cluster ({@link JournalServer}): started before the brokers, stopped
 * after them (they write to it until they stop).
 */
final class JournalProcess {
  private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);

  private final LocalLayout layout;
  private final LaunchSettings settings;
  private final PrintStream say;
  private final LocalProcess process;

  JournalProcess(LocalLayout layout, LaunchSettings settings, PrintStream say) {
    this.layout = layout;
    this.settings = settings;
    this.say = say;
    this.process = LocalProcess.journal(layout);
  }

  boolean running() {
    return process.running();
  }

  void start() throws IOException, InterruptedException {
    if (running()) {
      return;
    }
    int port = layout.journalPort();
    if (Ports.inUse(port)) {
      throw new PortTakenException("port " + port + " (the journal) is already in use by another process; stop it or"
          + " set FELIX_PORT_OFFSET");
    }
    Files.createDirectories(layout.dir());
    Process journal = Detached.start(JournalServer.commandLine(settings, layout), settings.environment(),
        layout.journalLog());
    process.record(journal.pid());
    awaitListening(journal, port);
    say.println("felix: started the placement journal (H2 server pid " + journal.pid() + ", port " + port + ", "
        + layout.journalFile() + ")");
  }

  /**
   * Until the journal process itself says it serves: the port alone is not enough, since another cluster started at
   * the same moment on the same range (a parallel test) may hold it; our brokers would then use its journal.
   */
  private void awaitListening(Process journal, int port) throws IOException, InterruptedException {
    String listening = JournalServer.listeningLine(journal.pid());
    long deadline = System.nanoTime() + LISTEN_TIMEOUT.toNanos();
    while (LogTail.lastLines(layout.journalLog(), 40).stream().noneMatch(line -> line.startsWith(listening))) {
      if (!journal.isAlive()) {
        process.forget();
        String tail = LogTail.of(layout.journalLog(), 20);
        if (journal.exitValue() == JournalServer.PORT_TAKEN) {
          throw new PortTakenException("port " + port + " (the journal) was taken by another process as the journal"
              + " started; last lines of " + layout.journalLog() + ":\n" + tail);
        }
        throw new IOException("the journal server exited; last lines of " + layout.journalLog() + ":\n" + tail);
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the journal server is not listening on " + port + " after "
            + LISTEN_TIMEOUT.toSeconds() + " s; see " + layout.journalLog());
      }
      Thread.sleep(100);
    }
  }

  void stop() throws IOException, InterruptedException {
    var handle = process.handle();
    if (handle.isEmpty()) {
      process.forget();
      return;
    }
    ProcessHandle journal = handle.get();
    journal.destroy();
    try {
      journal.onExit().get(STOP_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException stillThere) {
      journal.destroyForcibly();
    }
    process.forget();
    say.println("felix: stopped the placement journal (pid " + journal.pid() + ")");
  }
}
