package io.felix.launcher;

import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The supervisor of one local broker, a process of its own (started detached by {@link BrokerSupervision}, its
 * output appended to the broker's log): runs the broker process, and when it exits while not marked stopped
 * (SIGKILL, a crash, downed by the split brain resolver) starts it again after a {@link RestartBackoff}, as a compose
 * restart policy would. A broker stopped on purpose ('local stop', 'local down') carries the {@code stopped} mark,
 * which the supervisor respects. Being a process of its own, it outlives the command that started it, and a
 * {@code local kill} of the broker is answered by a restart.
 *
 * <p>Usage: {@code java -cp CLASSPATH io.felix.launcher.Supervisor LOCAL_DIR BROKER [--watch PID] -- COMMAND...}:
 * COMMAND runs the broker. With a CPU budget (the broker's {@code cpu-budget} file) the supervisor first enters the
 * broker's cgroup, which the broker inherits. With {@code --watch PID} (tests: their JVM) it marks the broker
 * stopped, SIGKILLs it and exits when that process is gone, so no broker outlives the run that started it.
 */
public final class Supervisor {
  private static final Duration WATCH_EVERY = Duration.ofSeconds(1);

  private final LocalLayout layout;
  private final int broker;
  private final List<String> command;
  private final PrintStream log;
  private volatile Process current;

  Supervisor(LocalLayout layout, int broker, List<String> command, PrintStream log) {
    this.layout = layout;
    this.broker = broker;
    this.command = List.copyOf(command);
    this.log = log;
  }

  public static void main(String[] args) throws Exception {
    int separator = Arrays.asList(args).indexOf("--");
    if (args.length < 2 || separator < 2 || separator == args.length - 1) {
      System.err.println("usage: Supervisor LOCAL_DIR BROKER [--watch PID] -- COMMAND...");
      System.exit(2);
    }
    OptionalLong watch = separator == 4 && args[2].equals("--watch")
        ? OptionalLong.of(Long.parseLong(args[3])) : OptionalLong.empty();
    // The port offset does not matter here: the supervisor touches files only.
    Supervisor supervisor = new Supervisor(new LocalLayout(Path.of(args[0]), 0), Integer.parseInt(args[1]),
        Arrays.asList(args).subList(separator + 1, args.length), System.out);
    watch.ifPresent(supervisor::watch);
    supervisor.run();
    System.exit(0);
  }

  /** The command line of broker N's supervisor, which runs {@code brokerCommand}. */
  static List<String> commandLine(LaunchSettings settings, LocalLayout layout, int broker,
      List<String> brokerCommand) {
    List<String> line = new java.util.ArrayList<>(List.of(settings.brokerJvm().java().toString(), "-Xmx32m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", settings.supervisorClasspath(),
        Supervisor.class.getName(), layout.dir().toString(), Integer.toString(broker)));
    settings.watchPid().ifPresent(pid -> line.addAll(List.of("--watch", Long.toString(pid))));
    line.add("--");
    line.addAll(brokerCommand);
    return line;
  }

  void run() throws IOException, InterruptedException {
    enterCpuBudget();
    RestartBackoff backoff = new RestartBackoff(System::nanoTime);
    LocalProcess pidFile = LocalProcess.broker(layout, broker);
    while (!stopped()) {
      say("starting broker " + broker);
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(layout.brokerLog(broker).toFile()))
          .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
      // A local broker takes everything from its generated file: none of the FELIX_* overrides a broker reads
      // from its environment (the docker image uses them) may leak in from the caller's.
      Map<String, String> env = builder.environment();
      env.keySet().removeIf(name -> name.startsWith("FELIX_"));
      backoff.started();
      Process process = builder.start();
      current = process;
      pidFile.record(process.pid());
      int status = process.waitFor();
      if (stopped()) {
        break;
      }
      Duration wait = backoff.exited();
      say("broker " + broker + " (pid " + process.pid() + ") exited with " + ExitStatus.describe(status)
          + "; restarting in " + wait.toSeconds() + "s");
      Thread.sleep(wait.toMillis());
    }
    say("broker " + broker + " is marked stopped; not restarting it");
  }

  private boolean stopped() {
    return Files.exists(layout.stoppedMark(broker));
  }

  private void enterCpuBudget() throws IOException {
    Path budgetFile = layout.cpuBudgetFile(broker);
    if (!Files.isRegularFile(budgetFile)) {
      return;
    }
    String budget = Files.readString(budgetFile).trim();
    Path group = CpuBudget.enter(layout.dir(), broker, Double.parseDouble(budget), ProcessHandle.current().pid());
    say("broker " + broker + " runs in cgroup " + group + " with " + budget + " CPU");
  }

  /** Ends the broker and this supervisor once process {@code pid} is gone. */
  private void watch(long pid) {
    Thread watcher = new Thread(() -> {
      try {
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
          Thread.sleep(WATCH_EVERY.toMillis());
        }
        Files.writeString(layout.stoppedMark(broker), "");
        Process broker = current;
        if (broker != null) {
          broker.destroyForcibly();
        }
        say("process " + pid + " (the watched one) is gone; killed broker " + this.broker + " and stopping");
        log.flush();
        Runtime.getRuntime().halt(0);
      } catch (InterruptedException | IOException e) {
        Thread.currentThread().interrupt();
      }
    }, "felix-watch");
    watcher.setDaemon(true);
    watcher.start();
  }

  private void say(String message) {
    log.println(Instant.now().truncatedTo(ChronoUnit.MILLIS) + " felix supervisor: " + message);
    log.flush();
  }
}
