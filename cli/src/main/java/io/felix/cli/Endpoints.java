package io.felix.cli;

import io.felix.client.ClientCredentials;
import io.felix.client.HostPort;
import io.felix.launcher.BrokerConfig;
import io.felix.launcher.LocalLayout;
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
 * {@code ~/.felix/profile}: a properties file with {@code admin=} and {@code bootstrap=}), else the brokers of the
 * local cluster ({@code felix local up}, in FELIX_LOCAL_DIR on FELIX_PORT_OFFSET), else broker 0 of one
 * (127.0.0.1:18080 and 127.0.0.1:19090, shifted by FELIX_PORT_OFFSET). The same order finds the CA of a cluster under
 * felix.tls ({@code --tls-ca}, FELIX_TLS_CA, {@code tls-ca=}, the local cluster's under {@code local up --tls}); with
 * one, the client ports are reached over TLS and the admin API over HTTPS (unless an address says http://).
 */
public final class Endpoints {

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = "--admin", paramLabel = "[http[s]://]HOST:PORT[,...]",
      description = "admin HTTP API of one or more brokers, the first that answers serving; https:// (or a CA from "
          + "--tls-ca) calls it over HTTPS (default: FELIX_ADMIN, the profile file, the local cluster's brokers, "
          + "127.0.0.1:18080)")
  String admin;

  @Option(names = "--bootstrap", paramLabel = "HOST:PORT[,...]",
      description = "client port of one or more brokers (default: FELIX_BOOTSTRAP, the profile file, the local "
          + "cluster's brokers, 127.0.0.1:19090)")
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

  /** The admin addresses, first match of flag, environment, profile, local cluster, default. */
  public List<AdminAddress> admin() {
    String value = resolve(admin, "FELIX_ADMIN", "admin", null);
    try {
      return AdminAddress.parseList(value != null ? value : local().admin());
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, "--admin: " + e.getMessage());
    }
  }

  /** The bootstrap addresses, first match of flag, environment, profile, local cluster, default. */
  public List<HostPort> bootstrap() {
    String value = resolve(bootstrap, "FELIX_BOOTSTRAP", "bootstrap", null);
    return parse("--bootstrap", value != null ? value : local().bootstrap());
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
    String ca = resolve(tlsCa, "FELIX_TLS_CA", "tls-ca", null);
    if (ca == null) {
      ca = local().ca();
    }
    if (ca.isBlank()) {
      return null;
    }
    try {
      return io.felix.protocol.tls.TlsFiles.clientContext(Path.of(ca), null, null);
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, "--tls-ca: " + e.getMessage());
    }
  }

  /** The local cluster's addresses (all of its brokers), or broker 0's of one when there is none. */
  private record LocalDefaults(String admin, String bootstrap, String ca) {}

  private LocalDefaults local() {
    LocalLayout layout;
    try {
      layout = LocalLayout.fromEnvironment(Felix.of(spec).environment());
    } catch (IllegalArgumentException e) {
      throw Ranges.usage(spec, e.getMessage());
    }
    List<Integer> brokers = layout.knownBrokers();
    if (brokers.isEmpty()) {
      return new LocalDefaults(LocalLayout.HOST + ":" + layout.adminPort(0),
          LocalLayout.HOST + ":" + layout.clientPort(0), "");
    }
    boolean tls = BrokerConfig.Written.read(layout.configFile(brokers.get(0))).tls();
    return new LocalDefaults(
        String.join(",", brokers.stream().map(b -> (tls ? "https://" : "http://") + LocalLayout.HOST + ":"
            + layout.adminPort(b)).toList()),
        String.join(",", brokers.stream().map(b -> LocalLayout.HOST + ":" + layout.clientPort(b)).toList()),
        tls ? layout.caFile().toString() : "");
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
