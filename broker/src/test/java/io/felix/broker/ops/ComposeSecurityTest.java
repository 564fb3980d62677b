package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigResolveOptions;
import io.felix.broker.node.BrokerConfigLayers;
import io.felix.broker.security.SecuritySettings;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code felix.security} as a broker of the image reads it: {@code docker/broker.conf} under a FELIX_* environment,
 * over reference.conf. Unset variables leave reference.conf's defaults (all off, as for {@code bin/felix local up});
 * the environment compose.yml gives its brokers turns client authentication, admin tokens and ACLs on, with the
 * token given at {@code docker compose up}, without which compose refuses to start.
 */
class ComposeSecurityTest {
  private static final Path ROOT = ComposeSettings.repositoryRoot();
  private static final Path COMPOSE = ROOT.resolve("docker/compose.yml");
  private static final String TOKEN = "a-token-given-at-docker-compose-up";
  private static final String NO_TOKEN = "FELIX_ADMIN_TOKEN: required variable FELIX_ADMIN_TOKEN is missing a value: "
      + "set FELIX_ADMIN_TOKEN to a long random string, at least 16 characters";

  @Test
  void brokerConfWithoutTheSecurityVariablesKeepsReferenceConfDefaults() {
    SecuritySettings defaults = SecuritySettings.fromConfig(ConfigFactory.defaultReference());
    assertEquals(SecuritySettings.OFF, defaults, "reference.conf: everything off");
    assertEquals(defaults, security(Map.of()), "broker.conf with no FELIX_* variable set");
    assertEquals(defaults, security(Map.of("FELIX_TLS_ENABLED", "off", "FELIX_ZONE", "a")), "with others set");
  }

  @Test
  void everyComposeBrokerRunsWithAuthenticationTokensAndAclsOn() throws Exception {
    for (String broker : List.of("broker-0", "broker-1", "broker-2", "broker-3")) {
      Map<String, String> env = ComposeSettings.brokerEnvironment(COMPOSE, broker, Map.of("FELIX_ADMIN_TOKEN", TOKEN));
      assertEquals(new SecuritySettings(true, true, true, Set.of("admin"), List.of(TOKEN), "admin", 8192),
          security(env), broker);
    }
  }

  @Test
  void composeRefusesToStartWithoutTheToken() {
    for (Map<String, String> variables : List.of(Map.<String, String>of(), Map.of("FELIX_ADMIN_TOKEN", ""))) {
      IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
          () -> ComposeSettings.brokerEnvironment(COMPOSE, "broker-0", variables));
      assertEquals(NO_TOKEN, refused.getMessage(), "variables " + variables);
    }
  }

  @Test
  void interpolationFollowsCompose() {
    Map<String, String> variables = Map.of("SET", "v", "EMPTY", "");
    assertEquals("v|v|d|||d|$x", ComposeSettings.interpolate("K",
        "${SET}|${SET:-d}|${EMPTY:-d}|${EMPTY-d}|${UNSET}|${UNSET-d}|$$x", variables));
    assertEquals("K: required variable EMPTY is missing a value: give it", assertThrows(IllegalArgumentException.class,
        () -> ComposeSettings.interpolate("K", "${EMPTY:?give it}", variables)).getMessage());
    assertEquals("", ComposeSettings.interpolate("K", "${EMPTY?give it}", variables), "? only refuses an unset one");
    assertThrows(IllegalArgumentException.class, () -> ComposeSettings.interpolate("K", "$SET", variables),
        "a form this reader does not understand is refused, not passed on");
  }

  /** broker.conf resolved with {@code environment} as the only environment variables, as BrokerMain layers it. */
  private static SecuritySettings security(Map<String, String> environment) {
    Config file = ConfigFactory.parseFile(ROOT.resolve("docker/broker.conf").toFile());
    Config config = BrokerConfigLayers.of(new Properties(), environment, file)
        .withFallback(ConfigFactory.defaultReference())
        .withFallback(ConfigFactory.parseMap(environment)) // where ${?FELIX_...} finds them: the root, then the env
        .resolve(ConfigResolveOptions.defaults().setUseSystemEnvironment(false));
    return SecuritySettings.fromConfig(config);
  }
}
