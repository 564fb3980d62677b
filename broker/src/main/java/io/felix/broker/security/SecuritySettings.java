package io.felix.broker.security;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import io.felix.protocol.scram.Scram;
import java.util.List;
import java.util.Set;

/** {@code felix.security}: which of authentication and authorization are on, super users, admin tokens. */
public record SecuritySettings(boolean clientAuthentication, boolean adminAuthentication, boolean authorization,
    Set<String> superUsers, List<String> adminTokens, String adminTokenPrincipal, int scramIterations) {

  public static final SecuritySettings OFF =
      new SecuritySettings(false, false, false, Set.of(), List.of(), "admin", 8192);

  public SecuritySettings {
    superUsers = Set.copyOf(superUsers);
    adminTokens = List.copyOf(adminTokens);
    if (scramIterations < Scram.MIN_ITERATIONS) {
      throw new ConfigException.BadValue("felix.security.scram-iterations",
          "must be at least " + Scram.MIN_ITERATIONS + " (RFC 7677), got " + scramIterations);
    }
    if (adminTokens.stream().anyMatch(t -> t.length() < 16)) {
      throw new ConfigException.BadValue("felix.security.admin-tokens", "every token must have at least 16 characters");
    }
  }

  public static SecuritySettings fromConfig(Config config) {
    if (!config.hasPath("felix.security")) {
      return OFF;
    }
    Config c = config.getConfig("felix.security");
    return new SecuritySettings(c.getBoolean("client-authentication"), c.getBoolean("admin-authentication"),
        c.getBoolean("authorization"), Set.copyOf(c.getStringList("super-users")), c.getStringList("admin-tokens"),
        c.getString("admin-token-principal"), c.getInt("scram-iterations"));
  }
}
