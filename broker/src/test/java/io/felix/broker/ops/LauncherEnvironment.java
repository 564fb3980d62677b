package io.felix.broker.ops;

import java.util.HashMap;
import java.util.Map;

/**
 * The environment the process tests give the launcher (LocalCluster, directly or through the chaos run): the
 * variables {@code felix local} reads (see {@link io.felix.launcher.LaunchSettings}).
 */
final class LauncherEnvironment {

  private LauncherEnvironment() {}

  /**
   * Brokers run from the test classpath (the tests run before Maven packages the broker jar) with {@code heap},
   * plus the further variables given as name, value pairs.
   */
  static Map<String, String> brokersFromTestClasspath(String heap, String... more) {
    if (more.length % 2 != 0) {
      throw new IllegalArgumentException("variables come as name, value pairs");
    }
    Map<String, String> environment = new HashMap<>();
    environment.put("FELIX_BROKER_CLASSPATH", io.felix.launcher.LaunchSettings.ownClasspath());
    environment.put("FELIX_BROKER_HEAP", heap);
    for (int i = 0; i < more.length; i += 2) {
      environment.put(more[i], more[i + 1]);
    }
    return Map.copyOf(environment);
  }
}
