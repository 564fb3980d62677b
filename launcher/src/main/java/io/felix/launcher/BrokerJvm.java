package io.felix.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a broker process is started: which java, from which code (the shaded broker jar, or a classpath holding
 * {@code io.felix.broker.node.BrokerMain}, as the tests' own), with which heap and JVM options. Every launcher of
 * broker processes builds its command line here: the local cluster's supervisors and the tests that start brokers
 * under the compose settings.
 *
 * @param code the broker jar or classpath
 * @param heap the maximum heap, like 512m or 1g
 * @param options further JVM options (the garbage collector)
 */
public record BrokerJvm(Path java, Code code, String heap, List<String> options) {

  public static final String MAIN_CLASS = "io.felix.broker.node.BrokerMain";
  /** The system property that marks a local broker's process, so a recycled pid is never mistaken for it. */
  public static final String LOCAL_BROKER_PROPERTY = "felix.local.broker";
  private static final Pattern SIZE = Pattern.compile("(\\d+)([kmg])");
  private static final long INITIAL_HEAP = 128L << 20;

  /** The broker's code: a runnable jar, or a classpath on which {@link #MAIN_CLASS} is run. */
  public record Code(Path jar, String classpath) {
    public static Code jar(Path jar) {
      return new Code(jar.toAbsolutePath(), null);
    }

    public static Code classpath(String classpath) {
      return new Code(null, classpath);
    }

    /** The arguments after the JVM options that run the broker. */
    List<String> mainArguments() {
      return jar != null ? List.of("-jar", jar.toString()) : List.of("-cp", classpath, MAIN_CLASS);
    }

    /** The code as a classpath (other main classes of the broker's dependencies run from it, such as H2's). */
    public String asClasspath() {
      return jar != null ? jar.toString() : classpath;
    }

    /** Null when the code is there; else what is missing. */
    String problem() {
      return jar == null || Files.isRegularFile(jar) ? null : "the broker jar " + jar + " does not exist";
    }
  }

  public BrokerJvm {
    options = List.copyOf(options);
    heapBytes(heap);
  }

  /** The JVM of a local cluster's broker: G1, exit on OutOfMemoryError (its supervisor starts it again). */
  public static BrokerJvm local(Path java, Code code, String heap) {
    return local(java, code, heap, List.of());
  }

  /**
   * As {@link #local(Path, Code, String)}, with {@code extraOptions} after Felix's own, so that they win; G1 only when
   * they choose no other collector (the JVM refuses to start with two).
   */
  public static BrokerJvm local(Path java, Code code, String heap, List<String> extraOptions) {
    List<String> options = new ArrayList<>();
    if (extraOptions.stream().noneMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"))) {
      options.add("-XX:+UseG1GC");
    }
    options.add("-XX:+ExitOnOutOfMemoryError");
    options.addAll(extraOptions);
    return new BrokerJvm(java, code, heap, options);
  }

  /** This JVM with other options (e.g. a lighter garbage collector for tests). */
  public BrokerJvm withOptions(List<String> otherOptions) {
    return new BrokerJvm(java, code, heap, otherOptions);
  }

  /** The command that runs a broker on {@code config}. */
  public List<String> command(Path config) {
    return command(config, List.of());
  }

  /**
   * The command of local broker {@code broker}: its process carries {@code -Dfelix.local.broker=N} and logs its
   * garbage collections to {@code gc.log} beside its config (as Kafka's scripts do to {@code kafkaServer-gc.log}):
   * a pause there explains a broker that went silent for its peers. Four files of 10 MiB at most.
   */
  public List<String> localCommand(Path config, int broker) {
    Path gcLog = config.toAbsolutePath().resolveSibling("gc.log");
    return command(config, List.of("-Xlog:gc:file=" + gcLog + ":time,uptime:filecount=4,filesize=10m",
        "-D" + LOCAL_BROKER_PROPERTY + "=" + broker));
  }

  private List<String> command(Path config, List<String> properties) {
    List<String> command = new ArrayList<>();
    command.add(java.toString());
    command.add("-Xms" + Math.min(INITIAL_HEAP, heapBytes(heap)) / 1024 + "k");
    command.add("-Xmx" + heap);
    command.addAll(options);
    command.addAll(properties);
    command.addAll(code.mainArguments());
    command.add(config.toString());
    return command;
  }

  private static long heapBytes(String heap) {
    Matcher m = SIZE.matcher(heap.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalArgumentException("FELIX_BROKER_HEAP must be a size like 512m or 1g, got '" + heap + "'");
    }
    int shift = switch (m.group(2)) {
      case "k" -> 10;
      case "m" -> 20;
      default -> 30;
    };
    long bytes = Long.parseLong(m.group(1)) << shift;
    if (bytes < (32L << 20)) {
      throw new IllegalArgumentException("FELIX_BROKER_HEAP must be at least 32m, got '" + heap + "'");
    }
    return bytes;
  }
}
