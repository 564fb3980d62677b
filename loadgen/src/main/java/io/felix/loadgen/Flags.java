package io.felix.loadgen;

import io.felix.client.HostPort;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Command-line flags of one subcommand: {@code --name value}, {@code --name=value}, or a bare switch. Every
 * typed getter reports a bad value as a {@link UsageException} naming the flag.
 */
public final class Flags {
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  private final Map<String, String> values;

  private Flags(Map<String, String> values) {
    this.values = values;
  }

  /**
   * @param valued flags that take a value, without the leading dashes
   * @param switches flags that take none
   */
  public static Flags parse(List<String> args, Set<String> valued, Set<String> switches) throws UsageException {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (!arg.startsWith("--") || arg.length() == 2) {
        throw new UsageException("unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value = null;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      }
      if (values.containsKey(name)) {
        throw new UsageException("--" + name + " is given twice");
      }
      if (switches.contains(name)) {
        if (value != null) {
          throw new UsageException("--" + name + " takes no value");
        }
        values.put(name, "true");
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.size() || args.get(i + 1).startsWith("--")) {
            throw new UsageException("--" + name + " needs a value");
          }
          value = args.get(++i);
        }
        values.put(name, value);
      } else {
        throw new UsageException("unknown flag --" + name);
      }
    }
    return new Flags(values);
  }

  public boolean has(String name) {
    return values.containsKey(name);
  }

  public String string(String name, String defaultValue) {
    return values.getOrDefault(name, defaultValue);
  }

  public String required(String name) throws UsageException {
    String v = values.get(name);
    if (v == null || v.isBlank()) {
      throw new UsageException("--" + name + " is required");
    }
    return v;
  }

  public List<HostPort> addresses(String name) throws UsageException {
    String v = required(name);
    try {
      return HostPort.parseList(v);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--" + name + ": " + e.getMessage());
    }
  }

  public long longValue(String name, long defaultValue, long min, long max) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return defaultValue;
    }
    long parsed;
    try {
      parsed = Long.parseLong(v.replace("_", ""));
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + ": expected a whole number, got '" + v + "'");
    }
    if (parsed < min || parsed > max) {
      throw new UsageException("--" + name + ": expected a number from " + min + " to " + max + ", got " + parsed);
    }
    return parsed;
  }

  public int intValue(String name, int defaultValue, int min, int max) throws UsageException {
    return (int) longValue(name, defaultValue, min, max);
  }

  /** Durations like 500ms, 30s, 5m, 1h. */
  public Duration duration(String name, Duration defaultValue) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return defaultValue;
    }
    Matcher m = DURATION.matcher(v.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new UsageException("--" + name + ": expected a duration like 500ms, 30s, 5m or 1h, got '" + v + "'");
    }
    long n = Long.parseLong(m.group(1));
    Duration d = switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
    if (d.isZero()) {
      throw new UsageException("--" + name + ": must be longer than zero, got '" + v + "'");
    }
    return d;
  }

  /** One of the allowed words (case-insensitive), mapped to its value. */
  public <T> T choice(String name, String defaultWord, Map<String, T> allowed) throws UsageException {
    String v = values.getOrDefault(name, defaultWord).toLowerCase(Locale.ROOT);
    T t = allowed.get(v);
    if (t == null) {
      throw new UsageException("--" + name + ": expected one of " + String.join(", ", allowed.keySet())
          + ", got '" + values.get(name) + "'");
    }
    return t;
  }
}
