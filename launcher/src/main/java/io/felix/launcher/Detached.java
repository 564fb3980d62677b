package io.felix.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Starts a process that outlives its starter: in a session of its own (setsid, where there is one), so a Ctrl-C in
 * the starter's terminal does not reach it, with stdin from /dev/null and its output appended to a log file.
 */
final class Detached {
  private static final Path SETSID = Path.of("/usr/bin/setsid");

  private Detached() {}

  static Process start(List<String> command, Map<String, String> environment, Path log) throws IOException {
    List<String> line = new ArrayList<>();
    if (Files.isExecutable(SETSID)) {
      line.add(SETSID.toString()); // not a group leader (a child of the JVM): setsid execs in place, same pid
    }
    line.addAll(command);
    Files.createDirectories(log.toAbsolutePath().getParent());
    ProcessBuilder builder = new ProcessBuilder(line)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
    builder.environment().clear();
    builder.environment().putAll(environment);
    return builder.start();
  }
}
