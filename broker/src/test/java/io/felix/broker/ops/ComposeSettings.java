package io.felix.broker.ops;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The broker environment that {@code docker/compose.yml} passes to one broker service: the shared
 * {@code x-broker-env} block merged with the service's own {@code environment}, with compose's interpolation of
 * the variables given at {@code docker compose up} ({@code ${VAR}}, {@code ${VAR:-default}},
 * {@code ${VAR:?error}}, {@code $$}). Read from the file itself, so a test exercises what the compose file really
 * says. A deliberately small reader for that file's layout (two-space YAML, {@code KEY: value} lines), not a YAML
 * parser.
 */
final class ComposeSettings {

  /** {@code $$}; {@code ${NAME}}, optionally with a {@code :-}, {@code -}, {@code :?} or {@code ?} part; a stray $. */
  private static final Pattern INTERPOLATION =
      Pattern.compile("\\$\\$|\\$\\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?}|\\$");

  private ComposeSettings() {}

  static Path repositoryRoot() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("docker/compose.yml"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("docker/compose.yml not found above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  /**
   * @param variables the environment of {@code docker compose up}, which the file's {@code ${VAR...}} read; a
   *     {@code ${VAR:?error}} whose variable is missing or empty throws, as compose refuses to start
   */
  static Map<String, String> brokerEnvironment(Path composeFile, String service, Map<String, String> variables)
      throws IOException {
    List<String> lines = Files.readAllLines(composeFile);
    Map<String, String> env = new LinkedHashMap<>(block(lines, lineOf(lines, "x-broker-env: &broker-env"), 2));
    int serviceLine = lines.indexOf("  " + service + ":");
    if (serviceLine < 0) {
      throw new IllegalArgumentException(composeFile + " has no service " + service);
    }
    int envLine = -1;
    for (int i = serviceLine + 1; i < lines.size() && !lines.get(i).matches("  \\S.*"); i++) {
      if (lines.get(i).equals("    environment:")) {
        envLine = i;
        break;
      }
    }
    if (envLine < 0) {
      throw new IllegalArgumentException("service " + service + " in " + composeFile + " has no environment");
    }
    env.putAll(block(lines, envLine, 6));
    env.remove("<<");
    env.replaceAll((key, value) -> interpolate(key, value, variables));
    return env;
  }

  /** The value with compose's interpolation applied, from {@code variables}. */
  static String interpolate(String key, String value, Map<String, String> variables) {
    Matcher m = INTERPOLATION.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if (m.group().equals("$$")) {
        replacement = "$";
      } else if (m.group(1) == null) {
        throw new IllegalArgumentException(key + ": only ${VAR}, ${VAR:-default}, ${VAR:?error} and $$ are "
            + "understood here, in '" + value + "'");
      } else {
        String name = m.group(1);
        String operator = m.group(2);
        String set = variables.get(name);
        boolean missing = operator != null && operator.startsWith(":") ? set == null || set.isEmpty() : set == null;
        if (missing && operator != null && operator.endsWith("?")) {
          throw new IllegalArgumentException(key + ": required variable " + name + " is missing a value: "
              + m.group(3));
        }
        replacement = !missing ? set : operator == null ? "" : m.group(3);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  private static int lineOf(List<String> lines, String header) {
    int index = lines.indexOf(header);
    if (index < 0) {
      throw new IllegalArgumentException("compose file has no '" + header + "'");
    }
    return index;
  }

  /** A service's own {@code environment} block, without the shared broker block (e.g. {@code postgres}). */
  static Map<String, String> serviceEnvironment(Path composeFile, String service) throws IOException {
    List<String> lines = Files.readAllLines(composeFile);
    int serviceLine = lineOf(lines, "  " + service + ":");
    for (int i = serviceLine + 1; i < lines.size() && !lines.get(i).matches("  \\S.*"); i++) {
      if (lines.get(i).equals("    environment:")) {
        return block(lines, i, 6);
      }
    }
    throw new IllegalArgumentException("service " + service + " in " + composeFile + " has no environment");
  }

  /** The {@code KEY: value} lines indented by exactly {@code indent} spaces right after line {@code start}. */
  private static Map<String, String> block(List<String> lines, int start, int indent) {
    Map<String, String> out = new LinkedHashMap<>();
    String prefix = " ".repeat(indent);
    for (int i = start + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (!line.startsWith(prefix) || line.charAt(indent) == ' ') {
        break;
      }
      int colon = line.indexOf(':');
      String value = line.substring(colon + 1).strip();
      if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
        value = value.substring(1, value.length() - 1);
      }
      out.put(line.substring(indent, colon), value);
    }
    return out;
  }
}
