package io.felix.launcher;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.h2.api.ErrorCode;
import org.h2.tools.Server;

/**
 * The placement journal's own process: an H2 TCP server on the layout's journal port serving
 * {@code LOCAL_DIR/journal.mv.db}, as PostgreSQL is its own process in compose. With the file opened by a broker
 * instead (AUTO_SERVER), killing the singleton's host also killed the journal's server, and the next singleton waited
 * 6-10 s for H2 to hand the file over before it could recover. It runs on the broker's classpath (which holds H2) with
 * this launcher's.
 *
 * <p>Usage: {@code JournalServer LOCAL_DIR PORT [--watch PID]}: with {@code --watch} it stops when that process
 * (a test JVM) is gone. Once it serves it prints {@link #listeningLine} with its pid (another process may hold the
 * port: only that line tells that this one serves); a port already taken ends it with {@link #PORT_TAKEN}.
 */
public final class JournalServer {
  /** The exit status when the port is taken: the launcher tries another range ({@link PortTakenException}). */
  static final int PORT_TAKEN = 3;

  private JournalServer() {}

  public static void main(String[] args) throws Exception {
    List<String> a = Arrays.asList(args);
    if (a.size() != 2 && !(a.size() == 4 && a.get(2).equals("--watch"))) {
      System.err.println("usage: JournalServer LOCAL_DIR PORT [--watch PID]");
      System.exit(2);
    }
    Path dir = Path.of(a.get(0));
    Server server;
    try {
      server = Server.createTcpServer("-tcpPort", a.get(1), "-baseDir", dir.toString(), "-ifNotExists").start();
    } catch (SQLException e) {
      if (e.getErrorCode() != ErrorCode.EXCEPTION_OPENING_PORT_2) {
        throw e;
      }
      System.out.println("journal server: port " + a.get(1) + " is taken by another process (" + e.getMessage() + ")");
      System.exit(PORT_TAKEN);
      return;
    }
    System.out.println(listeningLine(ProcessHandle.current().pid()) + " " + server.getURL() + " for "
        + dir.resolve("journal.mv.db"));
    if (a.size() == 4) {
      long watched = Long.parseLong(a.get(3));
      while (ProcessHandle.of(watched).map(ProcessHandle::isAlive).orElse(false)) {
        Thread.sleep(Duration.ofSeconds(1).toMillis());
      }
      System.out.println("process " + watched + " (the watched one) is gone; stopping the journal server");
      server.stop();
      System.exit(0);
    }
    Thread.currentThread().join(); // the server's threads serve; SIGTERM ends the JVM
  }

  /** How the journal process {@code pid} tells that it serves (its log is appended to by every start). */
  static String listeningLine(long pid) {
    return "journal server (pid " + pid + ") listening on";
  }

  /** The command line of the journal process. */
  static List<String> commandLine(LaunchSettings settings, LocalLayout layout) {
    List<String> line = new java.util.ArrayList<>(List.of(settings.brokerJvm().java().toString(), "-Xmx128m",
        "-cp", settings.journalClasspath(), JournalServer.class.getName(), layout.dir().toString(),
        Integer.toString(layout.journalPort())));
    settings.watchPid().ifPresent(pid -> line.addAll(List.of("--watch", Long.toString(pid))));
    return line;
  }
}
