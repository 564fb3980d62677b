package io.felix.launcher;

import java.util.Map;

/** An exit status as a supervisor reports it: "status 137 (SIGKILL)" for a process ended by a signal. */
final class ExitStatus {
  private static final Map<Integer, String> SIGNALS = Map.of(1, "SIGHUP", 2, "SIGINT", 3, "SIGQUIT", 6, "SIGABRT",
      9, "SIGKILL", 11, "SIGSEGV", 13, "SIGPIPE", 14, "SIGALRM", 15, "SIGTERM");

  private ExitStatus() {}

  /** Java reports a child ended by signal S with status 128+S, as a shell does. */
  static String describe(int status) {
    if (status > 128 && status < 160) {
      return "status " + status + " (" + SIGNALS.getOrDefault(status - 128, "signal " + (status - 128)) + ")";
    }
    return "status " + status;
  }
}
