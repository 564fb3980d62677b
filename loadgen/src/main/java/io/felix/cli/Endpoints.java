package io.felix.cli;

import io.felix.client.ClientCredentials;
import io.felix.client.HostPort;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Where a command finds the cluster: {@code --admin} (admin HTTP API) and {@code --bootstrap} (client port), else
 * the environment variables FELIX_ADMIN and FELIX_BOOTSTRAP, else the profile file (FELIX_PROFILE, default
 * {@code ~/.felix/profile}: a properties file with {@code admin=} and {@code bootstrap=}), else broker 0 of
 * {@code bin/felix local up} (127.0.0.1:18080 and 127.0.0.1:19090). The same order finds the CA of a cluster under
 * felix.tls ({@code --tls-ca}, FELIX_TLS_CA, {@code tls-ca=}); with one, the admin API is called over HTTPS and
 * the client ports over TLS.
 */
public final class Endpoints {
  static final String DEFAULT_ADMIN = "127.0.0.1:18080";
  static final String DEFAULT_BOOTSTRAP = "127.0.0.1:19090";

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--admin", paramLabel = "HOST:PORT[,...]",
      description = "admin HTTP API of one or more brokers (the first that answers serves; "
          + "default: FELIX_ADMIN, the profile file, " + DEFAULT_ADMIN + ")")
  String admin;

  @Option(names = "--bootstrap", paramLabel = "HOST:PORT[,...]",
      description = "client port of one or more brokers (default: FELIX_BOOTSTRAP, the profile file, "
          + DEFAULT_BOOTSTRAP + ")")
  String bootstrap;

  @Option(names = "--token", paramLabel = "TOKEN",
      description = "admin API bearer token, for brokers with felix.security.admin-authentication on "
          + "(default: FELIX_TOKEN)")
  String token;

  @Option(names = "--user", paramLabel = "NAME",
      description = "SCRAM-SHA-256 user for the client port, for brokers with "
          + "felix.security.client-authentication on (default: FELIX_USER)")
  String user;

  @Option(names = "--password", paramLabel = "PASSWORD",
      description = "the user's password (default: FELIX_PASSWORD, which other users of the machine cannot see in "
          + "the process list, unlike this option)")
  String password;
  @Option(names = "--tls-ca", paramLabel = "FILE",
      description = "PEM CA certificate of a cluster under TLS: talk HTTPS and TLS, trusting it (default: "
          + "FELIX_TLS_CA, the profile file's tls-ca; none: plaintext)")
  String tlsCa;

  /** The admin addresses, first match of flag, environment, profile, default. */
  public List<HostPort> admin() {
    return parse("--admin", resolve(admin, "FELIX_ADMIN", "admin", DEFAULT_ADMIN));
  }

  /** The bootstrap addresses, first match of flag, environment, profile, default. */
  public List<HostPort> bootstrap() {
    return parse("--bootstrap", resolve(bootstrap, "FELIX_BOOTSTRAP", "bootstrap", DEFAULT_BOOTSTRAP));
  }

  /** A client of the admin API at the resolved addresses. */
  public Admin adminClient() {
    return new Admin(admin(), fromFlagOrEnv(token, "FELIX_TOKEN"), tls());
  }

  /** The client port's credentials (--user/--password, else FELIX_USER/FELIX_PASSWORD), null for none. */
  public ClientCredentials credentials() {
    String name = fromFlagOrEnv(user, "FELIX_USER");
    String secret = fromFlagOrEnv(password, "FELIX_PASSWORD");
    if (name == null && secret == null) {
      return null;
    }
    if (name == null || secret == null) {
      throw Ranges.usage(spec, "--user and --password (or FELIX_USER and FELIX_PASSWORD) go together: give both");
    }
    return new ClientCredentials(name, secret);
  }

  /** The flag, else the environment variable (never the profile file: secrets stay out of it); null for neither. */
  private String fromFlagOrEnv(String flag, String variable) {
    return resolve(flag, variable, null, null);
  }

  /** The TLS context trusting the resolved CA file, or null (plaintext) when none is given. */
  public javax.net.ssl.SSLContext tls() {
    String ca = resolve(tlsCa, "FELIX_TLS_CA", "tls-ca", "");
    if (ca.isBlank()) {
      return null;
    }
    try {
      return io.felix.protocol.tls.TlsFiles.clientContext(Path.of(ca), null, null);
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, "--tls-ca: " + e.getMessage());
    }
  }

  private String resolve(String flag, String variable, String profileKey, String fallback) {
    if (flag != null && !flag.isBlank()) {
      return flag;
    }
    Map<String, String> env = Felix.of(spec).environment();
    String fromEnv = env.get(variable);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    if (profileKey == null) {
      return fallback;
    }
    String fromProfile = profile(env).getProperty(profileKey);
    return fromProfile != null && !fromProfile.isBlank() ? fromProfile.trim() : fallback;
  }

  private Properties profile(Map<String, String> env) {
    String named = env.get("FELIX_PROFILE");
    Path file = named != null ? Path.of(named) : Path.of(System.getProperty("user.home"), ".felix", "profile");
    Properties p = new Properties();
    if (named == null && !Files.isRegularFile(file)) {
      return p;
    }
    try (Reader r = Files.newBufferedReader(file)) {
      p.load(r);
    } catch (IOException e) {
      throw Ranges.usage(spec, "FELIX_PROFILE " + file + " cannot be read: " + e.getMessage());
    }
    return p;
  }

  private List<HostPort> parse(String option, String value) {
    try {
      return HostPort.parseList(value);
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, option + ": " + e.getMessage());
    }
  }
}
