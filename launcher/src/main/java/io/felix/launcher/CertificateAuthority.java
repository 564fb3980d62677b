package io.felix.launcher;

import io.felix.protocol.tls.TlsFiles;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A local certificate authority for a Felix cluster: one CA (EC P-256) that signs a certificate per broker
 * ({@code CN=broker-N}, the name the brokers check each other by) and per client. Every key is written as PEM
 * ({@code NAME.crt}: the certificate then the CA's, {@code NAME.key}: unencrypted PKCS#8, readable by the owner
 * only) and as a PKCS12 keystore ({@code NAME.p12}); the CA as {@code ca.crt} and {@code ca.key}.
 */
public final class CertificateAuthority {
  private static final Duration CA_VALIDITY = Duration.ofDays(3650);
  private static final Duration LEAF_VALIDITY = Duration.ofDays(825);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final KeyPair caKeys;
  private final X509Certificate caCertificate;

  private CertificateAuthority(KeyPair caKeys, X509Certificate caCertificate) {
    this.caKeys = caKeys;
    this.caCertificate = caCertificate;
  }

  /**
   * A new CA in {@code out} with a certificate per broker 0..brokers-1 ({@code CN=broker-N}, valid for broker-N,
   * localhost, 127.0.0.1 and {@code hosts}) and per client name: what {@code felix certs create} and
   * {@code felix local up --tls} write.
   */
  public static void writeCluster(Path out, int brokers, List<String> hosts, List<String> clients,
      char[] p12Password) throws IOException {
    CertificateAuthority ca = create("Felix local CA");
    ca.writeCa(out);
    for (int id = 0; id < brokers; id++) {
      List<String> names = new ArrayList<>(List.of("broker-" + id, "localhost", "127.0.0.1"));
      names.addAll(hosts);
      ca.issue(out, "broker-" + id, names, p12Password);
    }
    for (String client : clients) {
      ca.issue(out, client, List.of(), p12Password);
    }
  }

  /** A new CA named {@code name}. */
  public static CertificateAuthority create(String name) {
    KeyPair keys = newKeyPair();
    X500Name subject = new X500Name("CN=" + name);
    X509v3CertificateBuilder builder = builder(subject, subject, keys, CA_VALIDITY);
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a CA extension", e);
    }
    return new CertificateAuthority(keys, sign(builder, keys));
  }

  public X509Certificate certificate() {
    return caCertificate;
  }

  /** Writes ca.crt and ca.key into {@code dir}. */
  public void writeCa(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("ca.crt"), TlsFiles.certificatePem(caCertificate), StandardCharsets.US_ASCII);
    writePrivate(dir.resolve("ca.key"), TlsFiles.privateKeyPem(caKeys.getPrivate()).getBytes(StandardCharsets.US_ASCII));
  }

  /**
   * Issues a certificate for {@code commonName} (client and server use) valid for the given host names and IP
   * addresses, and writes NAME.crt, NAME.key and NAME.p12 (protected by {@code p12Password}) into {@code dir}.
   */
  public void issue(Path dir, String commonName, List<String> hosts, char[] p12Password) throws IOException {
    KeyPair keys = newKeyPair();
    X509v3CertificateBuilder builder = builder(new X500Name("CN=" + caName()), new X500Name("CN=" + commonName), keys,
        LEAF_VALIDITY);
    try {
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement));
      builder.addExtension(Extension.extendedKeyUsage, false,
          new ExtendedKeyUsage(new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      if (!hosts.isEmpty()) {
        List<GeneralName> names = new ArrayList<>();
        for (String host : hosts) {
          names.add(isAddress(host) ? new GeneralName(GeneralName.iPAddress, host)
              : new GeneralName(GeneralName.dNSName, host));
        }
        builder.addExtension(Extension.subjectAlternativeName, false,
            new GeneralNames(names.toArray(new GeneralName[0])));
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot encode a certificate extension", e);
    }
    X509Certificate certificate = sign(builder, caKeys);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(commonName + ".crt"),
        TlsFiles.certificatePem(certificate) + TlsFiles.certificatePem(caCertificate), StandardCharsets.US_ASCII);
    writePrivate(dir.resolve(commonName + ".key"),
        TlsFiles.privateKeyPem(keys.getPrivate()).getBytes(StandardCharsets.US_ASCII));
    try {
      KeyStore p12 = KeyStore.getInstance("PKCS12");
      p12.load(null, null);
      p12.setKeyEntry(commonName, keys.getPrivate(), p12Password, new Certificate[] {certificate, caCertificate});
      try (OutputStream out = Files.newOutputStream(dir.resolve(commonName + ".p12"))) {
        p12.store(out, p12Password);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot write the PKCS12 keystore of " + commonName, e);
    }
  }

  private String caName() {
    return caCertificate.getSubjectX500Principal().getName().replaceFirst("^CN=", "");
  }

  private static boolean isAddress(String host) {
    if (!host.matches("[0-9.]+|[0-9a-fA-F:]*:[0-9a-fA-F:.]*")) {
      return false;
    }
    try {
      InetAddress.getByName(host);
      return true;
    } catch (UnknownHostException e) {
      return false;
    }
  }

  private static void writePrivate(Path file, byte[] bytes) throws IOException {
    Files.write(file, bytes);
    try {
      Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: the file keeps the default permissions
    }
  }

  private static KeyPair newKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("EC P-256 is part of every JDK", e);
    }
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys, Duration validity) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM).add(BigInteger.ONE),
        Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(validity)), subject, keys.getPublic());
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer) {
    try {
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
    } catch (OperatorCreationException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot sign a certificate", e);
    }
  }
}
