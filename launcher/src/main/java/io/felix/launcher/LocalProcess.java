package io.felix.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A process a local cluster started, known by its pid file and recognized by a marker in its command line, so a
 * pid recycled by some other process after ours ended is never taken for ours (nor signalled).
 *
 * @param pidFile where its pid is written
 * @param markers arguments its command line carries, each exactly
 */
record LocalProcess(Path pidFile, List<String> markers) {

  LocalProcess(Path pidFile, String... markers) {
    this(pidFile, List.of(markers));
  }

  /** Broker N of the layout: {@code -Dfelix.local.broker=N} and its config file. */
  static LocalProcess broker(LocalLayout layout, int broker) {
    return new LocalProcess(layout.brokerPidFile(broker), "-D" + BrokerJvm.LOCAL_BROKER_PROPERTY + "=" + broker,
        layout.configFile(broker).toString());
  }

  /** Broker N's supervisor. */
  static LocalProcess supervisor(LocalLayout layout, int broker) {
    return new LocalProcess(layout.supervisorPidFile(broker), Supervisor.class.getName(), layout.dir().toString(),
        Integer.toString(broker));
  }

  /** The placement journal's H2 server. */
  static LocalProcess journal(LocalLayout layout) {
    return new LocalProcess(layout.journalPidFile(), JournalServer.class.getName(), layout.dir().toString());
  }

  /** The pid in the file, if it has one. */
  Optional<Long> pid() {
    try {
      return Optional.of(Long.parseLong(Files.readString(pidFile).trim()));
    } catch (IOException | NumberFormatException absentOrHalfWritten) {
      return Optional.empty();
    }
  }

  /** The live process of the pid file, when its command line carries the marker. */
  Optional<ProcessHandle> handle() {
    return pid().flatMap(ProcessHandle::of).filter(ProcessHandle::isAlive)
        .filter(h -> arguments(h).containsAll(markers));
  }

  /**
   * A process's command line: from /proc (the JDK's {@code ProcessHandle.Info.arguments()} is empty for a command
   * line of more than a page, as a broker's with the tests' classpath is), else as the JDK sees it.
   */
  static List<String> arguments(ProcessHandle process) {
    Path cmdline = Path.of("/proc", Long.toString(process.pid()), "cmdline");
    try {
      return List.of(new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0"));
    } catch (IOException noProc) {
      return process.info().arguments().map(List::of).orElse(List.of());
    }
  }

  boolean running() {
    return handle().isPresent();
  }

  /**
   * Whether the pid file's process is alive, whatever its command line: just after a start it may not have exec'd
   * its program yet, so its marker is not there.
   */
  boolean alive() {
    return pid().flatMap(ProcessHandle::of).map(ProcessHandle::isAlive).orElse(false);
  }

  void record(long pid) throws IOException {
    Files.writeString(pidFile, Long.toString(pid));
  }

  void forget() throws IOException {
    Files.deleteIfExists(pidFile);
  }
}
