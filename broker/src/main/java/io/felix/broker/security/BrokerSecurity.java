package io.felix.broker.security;

import io.felix.protocol.scram.Scram;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;

/**
 * One per broker (an ActorSystem extension): the security settings and the newest {@link SecurityState} the
 * placement singleton pushed (through {@link SecurityHolder}), and the checks the client listener, the replication
 * inbound and the admin API make against them. Thread-safe: the state is one immutable value swapped whole.
 */
public final class BrokerSecurity implements Extension {
  /** The principal of a client connection when client authentication is off. */
  public static final String ANONYMOUS = "anonymous";

  private static final ExtensionId<BrokerSecurity> ID = new ExtensionId<>() {
    @Override
    public BrokerSecurity createExtension(ActorSystem<?> system) {
      return new BrokerSecurity(SecuritySettings.fromConfig(system.settings().config()));
    }
  };

  private final SecuritySettings settings;
  private final AtomicReference<SecurityState> state = new AtomicReference<>(SecurityState.EMPTY);
  private final byte[] unknownUserSecret = new byte[32];

  BrokerSecurity(SecuritySettings settings) {
    this.settings = settings;
    new SecureRandom().nextBytes(unknownUserSecret);
  }

  public static BrokerSecurity of(ActorSystem<?> system) {
    return ID.apply(system);
  }

  public SecuritySettings settings() {
    return settings;
  }

  public SecurityState state() {
    return state.get();
  }

  /** Takes {@code pushed} unless this broker already holds a newer state. */
  public boolean update(SecurityState pushed) {
    SecurityState now = state.get();
    while (pushed.version() >= now.version() && !pushed.equals(now)) {
      if (state.compareAndSet(now, pushed)) {
        return true;
      }
      now = state.get();
    }
    return false;
  }

  /** A new SCRAM exchange for one client connection, against the credentials held now. */
  public ScramServer newScramServer() {
    return new ScramServer(user -> state.get().credential(user), unknownUserSecret, settings.scramIterations(),
        Scram.nonce());
  }

  /** Whether {@code principal} may do {@code operation} on the resource (always, with authorization off). */
  public boolean authorized(String principal, ResourceType type, String name, Operation operation) {
    return !settings.authorization() || settings.superUsers().contains(principal)
        || state.get().allows(principal, type, name, operation);
  }

  /** The principal of an admin API bearer token: a configured one, or one issued to a user; empty for neither. */
  public Optional<String> adminPrincipal(String token) {
    byte[] given = token.getBytes(StandardCharsets.UTF_8);
    for (String configured : settings.adminTokens()) {
      if (MessageDigest.isEqual(given, configured.getBytes(StandardCharsets.UTF_8))) {
        return Optional.of(settings.adminTokenPrincipal());
      }
    }
    return state.get().tokenUser(tokenHash(token));
  }

  /** How an issued token is stored: its SHA-256, base64 (tokens are 32 random bytes, so no salt is needed). */
  public static String tokenHash(String token) {
    return Scram.b64(Scram.hash(token.getBytes(StandardCharsets.UTF_8)));
  }
}
