package io.felix.protocol.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Key material from files, with the JDK's own APIs only: certificates from PEM, an unencrypted PKCS#8 private key
 * from PEM, PKCS12 keystores, and the {@link SSLContext} built from them. Shared by the broker and the client
 * library; every failure names the file and what is wrong with it.
 */
public final class TlsFiles {
  /** The password of the in-memory keystores built from PEM files (they never leave the process). */
  private static final char[] IN_MEMORY = "felix".toCharArray();
  private static final String PKCS8_BEGIN = "-----BEGIN PRIVATE KEY-----";
  private static final String PKCS8_END = "-----END PRIVATE KEY-----";

  private TlsFiles() {}

  /** Every certificate in a PEM file (a chain: the leaf first). */
  public static List<X509Certificate> certificates(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      List<X509Certificate> certs = new ArrayList<>();
      for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        certs.add((X509Certificate) c);
      }
      if (certs.isEmpty()) {
        throw new IllegalArgumentException("no PEM certificate in " + pem);
      }
      return certs;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the PEM certificate(s) in " + pem + ": " + e.getMessage(), e);
    }
  }

  /** An unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}), EC or RSA. */
  public static PrivateKey privateKey(Path pem) {
    String text;
    try {
      text = Files.readString(pem, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the private key file " + pem + ": " + e.getMessage(), e);
    }
    int begin = text.indexOf(PKCS8_BEGIN);
    int end = text.indexOf(PKCS8_END);
    if (begin < 0 || end < begin) {
      throw new IllegalArgumentException(pem + " holds no unencrypted PKCS#8 key (" + PKCS8_BEGIN + "); convert it with"
          + " `openssl pkcs8 -topk8 -nocrypt -in KEY -out " + pem.getFileName() + "`");
    }
    byte[] der = Base64.getMimeDecoder().decode(text.substring(begin + PKCS8_BEGIN.length(), end));
    for (String algorithm : List.of("EC", "RSA", "Ed25519")) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // not this algorithm: try the next
      }
    }
    throw new IllegalArgumentException(pem + " holds a PKCS#8 key that is neither EC, RSA nor Ed25519");
  }

  /** Writes a private key as unencrypted PKCS#8 PEM, the form {@link #privateKey} reads. */
  public static String privateKeyPem(PrivateKey key) {
    return PKCS8_BEGIN + "\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(key.getEncoded()) + "\n" + PKCS8_END + "\n";
  }

  /** Writes a certificate as PEM, the form {@link #certificates} reads. */
  public static String certificatePem(X509Certificate cert) {
    try {
      return "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
          .encodeToString(cert.getEncoded()) + "\n-----END CERTIFICATE-----\n";
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot encode certificate " + cert.getSubjectX500Principal(), e);
    }
  }

  /** A PKCS12 keystore file. */
  public static KeyStore pkcs12(Path file, char[] password) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, password);
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot open the PKCS12 keystore " + file + " (wrong password or not PKCS12?): "
          + e.getMessage(), e);
    }
  }

  /** A keystore holding one key and its chain, for a key and certificate read from PEM files. */
  public static KeyStore keyStore(PrivateKey key, List<X509Certificate> chain) {
    try {
      KeyStore store = emptyStore();
      store.setKeyEntry("key", key, IN_MEMORY, chain.toArray(new Certificate[0]));
      return store;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("the private key does not match its certificate "
          + chain.get(0).getSubjectX500Principal() + ": " + e.getMessage(), e);
    }
  }

  /** A trust store holding the given CA certificates. */
  public static KeyStore trustStore(List<X509Certificate> cas) {
    try {
      KeyStore store = emptyStore();
      for (int i = 0; i < cas.size(); i++) {
        store.setCertificateEntry("ca-" + i, cas.get(i));
      }
      return store;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot build a trust store: " + e.getMessage(), e);
    }
  }

  /**
   * A TLS context (TLS 1.3 and 1.2) that presents {@code keys} (null: no certificate of its own) and trusts the
   * certificates signed by a CA in {@code trust}.
   *
   * @param keyPassword the password of the key entries in {@code keys}; null for a store from {@link #keyStore}
   */
  public static SSLContext context(KeyStore keys, char[] keyPassword, KeyStore trust) {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      KeyManagerFactory kmf = null;
      if (keys != null) {
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, keyPassword == null ? IN_MEMORY : keyPassword);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot build a TLS context: " + e.getMessage(), e);
    }
  }

  /** A client's context: trusts the CA in a PEM file; presents a certificate when both PEM files are given. */
  public static SSLContext clientContext(Path caPem, Path certificatePem, Path privateKeyPem) {
    KeyStore keys = certificatePem == null ? null : keyStore(privateKey(privateKeyPem), certificates(certificatePem));
    return context(keys, null, trustStore(certificates(caPem)));
  }

  private static KeyStore emptyStore() throws GeneralSecurityException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    try {
      store.load(null, null);
    } catch (IOException e) {
      throw new IllegalStateException("an empty keystore cannot fail to load", e);
    }
    return store;
  }
}
