package io.felix.launcher;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * How a launcher starts the processes of a local cluster, read from environment variables (the ones bin/felix has
 * always documented), so a command line, a test and the fault suite configure it the same way:
 * <ul>
 *   <li>FELIX_BROKER_CLASSPATH: run brokers as {@code io.felix.broker.node.BrokerMain} from this classpath (the
 *       tests' own: they run before the jar is packaged); else FELIX_BROKER_JAR; else the checkout's
 *       {@code broker/target/felix-broker.jar};</li>
 *   <li>FELIX_BROKER_HEAP: the brokers' heap (default 512m); JAVA: the java command (default this JVM's);</li>
 *   <li>FELIX_BROKER_JVM_OPTIONS: further options of the brokers' JVMs, separated by spaces, after Felix's own so
 *       that they win (as Kafka's KAFKA_JVM_PERFORMANCE_OPTS): another garbage collector, a JFR recording;</li>
 *   <li>FELIX_READY_TIMEOUT: seconds to wait for each broker to answer (default 90);</li>
 *   <li>FELIX_WATCH_PID: a process (a test JVM) whose end also ends the brokers and the journal;</li>
 *   <li>FELIX_BROKER_GID_BASE: broker N runs with group id BASE+N (the partition faults tell brokers apart by it);</li>
 *   <li>FELIX_TOKEN: the admin bearer token the launcher's own readiness calls carry.</li>
 * </ul>
 * The whole environment is handed to the supervisors and so to the brokers (JAVA_TOOL_OPTIONS reaches them), less
 * the FELIX_* variables a broker would read as overrides of its generated file.
 *
 * @param environment the environment of the processes the launcher starts
 * @param supervisorClasspath the classpath holding this launcher, for the supervisor and journal processes
 */
public record LaunchSettings(Map<String, String> environment, Path home, BrokerJvm brokerJvm, Duration readyTimeout,
    OptionalLong watchPid, OptionalInt groupIdBase, String adminToken, String supervisorClasspath) {

  public LaunchSettings {
    environment = Map.copyOf(environment);
  }

  /** The settings of this process's environment with {@code overrides} on top. */
  public static LaunchSettings fromEnvironment(Map<String, String> overrides) {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.putAll(overrides);
    return of(env);
  }

  /** The settings {@code env} names (nothing else is read). */
  public static LaunchSettings of(Map<String, String> env) {
    Path home = FelixHome.of(env);
    String classpath = blankToNull(env.get("FELIX_BROKER_CLASSPATH"));
    String jar = blankToNull(env.get("FELIX_BROKER_JAR"));
    BrokerJvm.Code code = classpath != null ? BrokerJvm.Code.classpath(classpath)
        : BrokerJvm.Code.jar(jar != null ? Path.of(jar) : home.resolve("broker/target/felix-broker.jar"));
    String java = blankToNull(env.get("JAVA"));
    BrokerJvm jvm = BrokerJvm.local(java != null ? Path.of(java) : thisJava(),
        code, env.getOrDefault("FELIX_BROKER_HEAP", "512m"), jvmOptions(env.get("FELIX_BROKER_JVM_OPTIONS")));
    long ready = whole(env, "FELIX_READY_TIMEOUT", 90);
    if (ready < 1) {
      throw new IllegalArgumentException("FELIX_READY_TIMEOUT must be at least 1 (seconds), got " + ready);
    }
    String watch = blankToNull(env.get("FELIX_WATCH_PID"));
    String gid = blankToNull(env.get("FELIX_BROKER_GID_BASE"));
    return new LaunchSettings(env, home, jvm, Duration.ofSeconds(ready),
        watch == null ? OptionalLong.empty() : OptionalLong.of(whole(env, "FELIX_WATCH_PID", 0)),
        gid == null ? OptionalInt.empty() : OptionalInt.of((int) whole(env, "FELIX_BROKER_GID_BASE", 0)),
        blankToNull(env.get("FELIX_TOKEN")), ownClasspath());
  }

  /** The options of FELIX_BROKER_JVM_OPTIONS, none when it is unset or blank. */
  private static List<String> jvmOptions(String options) {
    return options == null || options.isBlank() ? List.of() : List.of(options.trim().split("\\s+"));
  }

  /** The java of this JVM. */
  public static Path thisJava() {
    return Path.of(System.getProperty("java.home"), "bin", "java");
  }

  /**
   * This JVM's classpath: Surefire runs tests from a manifest-only jar and publishes the real classpath in
   * {@code surefire.test.class.path}.
   */
  public static String ownClasspath() {
    return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
  }

  /** The journal's classpath: the broker's code (which holds H2) and the launcher's (its main class). */
  String journalClasspath() {
    return brokerJvm.code().asClasspath() + File.pathSeparator + supervisorClasspath;
  }

  private static long whole(Map<String, String> env, String name, long fallback) {
    String value = blankToNull(env.get(name));
    if (value == null) {
      return fallback;
    }
    try {
      return Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(name + " must be a whole number, got '" + value + "'");
    }
  }

  private static String blankToNull(String value) {
    return value == null || value.isBlank() ? null : value;
  }
}
