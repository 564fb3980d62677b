package io.felix.broker.tls;

import com.typesafe.config.Config;
import io.felix.protocol.tls.TlsFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * The {@code felix.tls} section (see reference.conf): whether the broker's listeners (clients, admin API,
 * replication, Artery) speak TLS, and the key material they use. The files are read once, here, so a missing or
 * wrong file stops the broker at start with a message naming the setting.
 */
public final class TlsSettings {
  private static final String SECTION = "felix.tls.";

  private final boolean enabled;
  private final TlsClientAuth clientAuth;
  private final SSLContext context;

  private TlsSettings(boolean enabled, TlsClientAuth clientAuth, SSLContext context) {
    this.enabled = enabled;
    this.clientAuth = clientAuth;
    this.context = context;
  }

  /** Plaintext everywhere (tests and tools that build a listener without a config). */
  public static TlsSettings off() {
    return new TlsSettings(false, TlsClientAuth.NONE, null);
  }

  public static TlsSettings fromConfig(Config root) {
    Config c = root.getConfig("felix.tls");
    TlsClientAuth clientAuth;
    try {
      clientAuth = TlsClientAuth.valueOf(c.getString("client-auth").toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(SECTION + "client-auth must be none, requested or required, got '"
          + c.getString("client-auth") + "'");
    }
    if (!c.getBoolean("enabled")) {
      return new TlsSettings(false, clientAuth, null);
    }
    return new TlsSettings(true, clientAuth, TlsFiles.context(keys(c), keyPassword(c), trust(c)));
  }

  private static KeyStore keys(Config c) {
    Path store = file(c, "key-store-file");
    if (store != null) {
      return TlsFiles.pkcs12(store, c.getString("key-store-password").toCharArray());
    }
    Path certificate = file(c, "certificate-file");
    Path key = file(c, "private-key-file");
    if (certificate == null || key == null) {
      throw new IllegalArgumentException(SECTION + "enabled = on needs the broker's key: " + SECTION
          + "key-store-file (PKCS12), or both " + SECTION + "certificate-file and " + SECTION + "private-key-file (PEM)");
    }
    return TlsFiles.keyStore(TlsFiles.privateKey(key), TlsFiles.certificates(certificate));
  }

  private static char[] keyPassword(Config c) {
    return file(c, "key-store-file") == null ? null : c.getString("key-store-password").toCharArray();
  }

  private static KeyStore trust(Config c) {
    Path store = file(c, "trust-store-file");
    if (store != null) {
      return TlsFiles.pkcs12(store, c.getString("trust-store-password").toCharArray());
    }
    Path ca = file(c, "ca-file");
    if (ca == null) {
      throw new IllegalArgumentException(SECTION + "enabled = on needs the cluster CA: " + SECTION
          + "ca-file (PEM) or " + SECTION + "trust-store-file (PKCS12)");
    }
    return TlsFiles.trustStore(TlsFiles.certificates(ca));
  }

  /** The named file, null when the setting is empty; a named file that does not exist is an error. */
  private static Path file(Config c, String key) {
    String value = c.getString(key);
    if (value.isBlank()) {
      return null;
    }
    Path path = Path.of(value);
    if (!Files.isReadable(path)) {
      throw new IllegalArgumentException(SECTION + key + " names " + path + ", which does not exist or cannot be read");
    }
    return path;
  }

  public boolean enabled() {
    return enabled;
  }

  public TlsClientAuth clientAuth() {
    return clientAuth;
  }

  /** The TLS context built from the configured files; only when {@link #enabled()}. */
  public SSLContext context() {
    if (!enabled) {
      throw new IllegalStateException("felix.tls is off: there is no TLS context");
    }
    return context;
  }

  /** A server-side engine for a listener of clients, asking for a client certificate as client-auth says. */
  public SSLEngine clientFacingEngine() {
    SSLEngine engine = context().createSSLEngine();
    engine.setUseClientMode(false);
    switch (clientAuth) {
      case REQUIRED -> engine.setNeedClientAuth(true);
      case REQUESTED -> engine.setWantClientAuth(true);
      case NONE -> engine.setWantClientAuth(false);
    }
    return engine;
  }

  /** A server-side engine for another broker: its certificate is required (mutual TLS). */
  public SSLEngine brokerServerEngine() {
    SSLEngine engine = context().createSSLEngine();
    engine.setUseClientMode(false);
    engine.setNeedClientAuth(true);
    return engine;
  }

  /**
   * A client-side engine for dialling another broker. Host names are not checked (brokers may be dialled by any
   * address they advertise); the peer's certificate must instead name the broker meant ({@link PeerCertificates}).
   */
  public SSLEngine brokerClientEngine(String host, int port) {
    SSLEngine engine = context().createSSLEngine(host, port);
    engine.setUseClientMode(true);
    SSLParameters parameters = engine.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm(null);
    engine.setSSLParameters(parameters);
    return engine;
  }
}
