package io.felix.broker.ops;

import java.util.HashMap;
import java.util.Map;

/**
 * The environment the process tests give the launcher (LocalCluster, directly or through the chaos run): the
 * variables {@code felix local} reads (see {@link io.felix.launcher.LaunchSettings}).
 */
final class LauncherEnvironment {
  /**
   * JVM flags of every broker (and journal) process the tests start: the client compiler only. A broker's start is
   * mostly class loading and code run once; on two cores the server compiler's threads cost a third of the CPU a
   * cluster of three needs to get ready, and the tests' load (hundreds of records a second) never needs its code.
   */
  static final String JVM_OPTIONS = "-XX:TieredStopAtLevel=1";

  private LauncherEnvironment() {}

  /**
   * Brokers run from the test classpath (the tests run before Maven packages the broker jar) with {@code heap} and
   * {@link #JVM_OPTIONS}, plus the further variables given as name, value pairs (a JAVA_TOOL_OPTIONS given is added
   * to the JVM options).
   */
  static Map<String, String> brokersFromTestClasspath(String heap, String... more) {
    if (more.length % 2 != 0) {
      throw new IllegalArgumentException("variables come as name, value pairs");
    }
    Map<String, String> environment = new HashMap<>();
    environment.put("FELIX_BROKER_CLASSPATH", io.felix.launcher.LaunchSettings.ownClasspath());
    environment.put("FELIX_BROKER_HEAP", heap);
    environment.put("JAVA_TOOL_OPTIONS", JVM_OPTIONS);
    for (int i = 0; i < more.length; i += 2) {
      String name = more[i];
      environment.merge(name, more[i + 1], (old, given) -> name.equals("JAVA_TOOL_OPTIONS") ? old + " " + given : given);
    }
    return Map.copyOf(environment);
  }
}
