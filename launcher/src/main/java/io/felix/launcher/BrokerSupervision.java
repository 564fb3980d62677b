package io.felix.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Starting, stopping and killing one broker of a local cluster through its {@link Supervisor}: each broker runs under
 * a supervisor process of its own (pid file {@code supervisor.pid}), which restarts it when it exits without having
 * been stopped on purpose.
 */
final class BrokerSupervision {
  /** A broker SIGTERMed has this long to leave the cluster gracefully before it is SIGKILLed. */
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);

  private final LocalLayout layout;
  private final LaunchSettings settings;
  private final PrintStream say;

  BrokerSupervision(LocalLayout layout, LaunchSettings settings, PrintStream say) {
    this.layout = layout;
    this.settings = settings;
    this.say = say;
  }

  LocalProcess broker(int id) {
    return LocalProcess.broker(layout, id);
  }

  boolean running(int id) {
    return broker(id).running();
  }

  boolean supervised(int id) {
    return LocalProcess.supervisor(layout, id).running();
  }

  /** Whether broker N's supervisor, as started by this launcher, is alive (it may not have exec'd java yet). */
  boolean supervisorAlive(int id) {
    return LocalProcess.supervisor(layout, id).alive();
  }

  /** The pid of broker N's running process. */
  Optional<Long> pid(int id) {
    return broker(id).handle().map(ProcessHandle::pid);
  }

  /**
   * Starts broker N's supervisor, which starts the broker: clears its stopped mark; does nothing (but say so) when
   * it runs already.
   *
   * @throws PortTakenException when one of its ports is in use by another process
   */
  void start(int id) throws IOException {
    if (!Files.isRegularFile(layout.configFile(id))) {
      throw new IOException("no broker " + id + " in " + layout.dir() + " (run 'felix local up' first)");
    }
    Files.deleteIfExists(layout.stoppedMark(id));
    if (supervised(id) || running(id)) {
      say.println("felix: broker " + id + " is already running (pid " + pid(id).map(String::valueOf).orElse("-")
          + ")");
      return;
    }
    for (int port : layout.brokerPorts(id)) {
      if (Ports.inUse(port)) {
        throw new PortTakenException("port " + port + " (broker " + id + ") is already in use by another process;"
            + " stop it or set FELIX_PORT_OFFSET");
      }
    }
    String missing = settings.brokerJvm().code().problem();
    if (missing != null) {
      throw new IOException(missing + "; build it with 'bin/felix build' (mvn -B -DskipTests package)");
    }
    broker(id).forget();
    Process supervisor = Detached.start(Supervisor.commandLine(settings, layout, id, brokerCommand(id)),
        settings.environment(), layout.brokerLog(id));
    LocalProcess.supervisor(layout, id).record(supervisor.pid());
    say.println("felix: started broker " + id + " (supervisor pid " + supervisor.pid() + ", log " + layout.brokerLog(id)
        + ")");
  }

  /** The command the supervisor runs: the broker's JVM, under group id BASE+N when the partition faults ask. */
  private List<String> brokerCommand(int id) {
    List<String> command = new ArrayList<>();
    settings.groupIdBase().ifPresent(base -> command.addAll(List.of("setpriv", "--regid=" + (base + id),
        "--clear-groups")));
    command.addAll(settings.brokerJvm().localCommand(layout.configFile(id), id));
    return command;
  }

  /**
   * Stops broker N on purpose: marks it stopped, ends its supervisor, then SIGTERM (Pekko leaves the cluster
   * gracefully) and SIGKILL after 20 s. Returns false when no broker process was running.
   */
  boolean stop(int id) throws IOException, InterruptedException {
    Optional<ProcessHandle> process = signalStop(id);
    if (process.isEmpty()) {
      return false;
    }
    awaitStopped(id, process.get());
    return true;
  }

  /**
   * The first half of {@link #stop}: marks broker N stopped, ends its supervisor and sends SIGTERM, without waiting;
   * the broker process signalled, if one was running. {@link #awaitStopped} waits for it.
   */
  Optional<ProcessHandle> signalStop(int id) throws IOException {
    Files.createDirectories(layout.brokerDir(id));
    Files.writeString(layout.stoppedMark(id), "");
    LocalProcess supervisor = LocalProcess.supervisor(layout, id);
    supervisor.handle().ifPresent(ProcessHandle::destroy);
    supervisor.forget();
    Optional<ProcessHandle> handle = broker(id).handle();
    handle.ifPresent(ProcessHandle::destroy);
    return handle;
  }

  /** The second half of {@link #stop}: waits for the signalled broker N to exit, SIGKILLing it after 20 s. */
  void awaitStopped(int id, ProcessHandle process) throws InterruptedException {
    try {
      process.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException slow) {
      say.println("felix: broker " + id + " (pid " + process.pid() + ") did not stop in " + STOP_TIMEOUT.toSeconds()
          + " s; sending SIGKILL");
      process.destroyForcibly();
      process.onExit().join();
    } catch (ExecutionException cannotHappen) {
      throw new IllegalStateException(cannotHappen);
    }
    say.println("felix: stopped broker " + id + " (pid " + process.pid() + ")");
  }

  /** SIGKILLs broker N; its supervisor starts it again. */
  void kill(int id) throws IOException {
    ProcessHandle process = runningBroker(id);
    process.destroyForcibly();
    say.println("felix: sent SIGKILL to broker " + id + " (pid " + process.pid() + "); its supervisor starts it again"
        + " ('felix local stop " + id + "' keeps it down)");
  }

  /**
   * SIGKILLs broker N and keeps it down: the stopped mark is written first, so its supervisor, seeing the process
   * gone, does not start it again ({@link #start} clears the mark).
   */
  void killAndKeepDown(int id) throws IOException {
    ProcessHandle process = runningBroker(id);
    Files.writeString(layout.stoppedMark(id), "");
    process.destroyForcibly();
    say.println("felix: sent SIGKILL to broker " + id + " (pid " + process.pid() + "); marked stopped, it stays down");
  }

  private ProcessHandle runningBroker(int id) throws IOException {
    return broker(id).handle().orElseThrow(() -> new IOException("broker " + id + " is not running"));
  }
}
