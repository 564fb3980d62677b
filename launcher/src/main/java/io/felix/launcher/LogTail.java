package io.felix.launcher;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The last lines of a log file (read from its end, however long the file), for failure messages. */
final class LogTail {
  private static final int MAX_BYTES = 256 * 1024;

  private LogTail() {}

  static String of(Path log, int lines) {
    return String.join("\n", lastLines(log, lines));
  }

  static List<String> lastLines(Path log, int lines) {
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      long start = Math.max(0, file.length() - MAX_BYTES);
      byte[] bytes = new byte[(int) (file.length() - start)];
      file.seek(start);
      file.readFully(bytes);
      List<String> all = new String(bytes, StandardCharsets.UTF_8).lines().toList();
      if (start > 0 && !all.isEmpty()) {
        all = all.subList(1, all.size()); // the first line read may be cut
      }
      return all.subList(Math.max(0, all.size() - lines), all.size());
    } catch (IOException e) {
      return List.of("(no log: " + e.getMessage() + ")");
    }
  }
}
