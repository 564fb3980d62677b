package io.felix.broker.transport;

import com.typesafe.config.Config;
import io.felix.broker.tls.TlsSettings;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * How brokers prove to each other who they are on the replication link: mutual TLS with certificates naming the
 * broker (felix.tls), and/or the cluster secret's HMAC challenge (felix.replication.cluster-secret). With neither,
 * a PeerHello is taken at its word (the default on a trusted network, as before).
 */
public final class PeerAuthentication {
  private static final int CHALLENGE_BYTES = 32;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** Which side of the connection a proof is for: a dialler's proof cannot be replayed as an acceptor's. */
  enum Role { DIALLER, ACCEPTOR }

  private final TlsSettings tls;
  private final SecretKeySpec secret;

  public PeerAuthentication(TlsSettings tls, String clusterSecret) {
    this.tls = tls;
    this.secret = clusterSecret == null || clusterSecret.isEmpty() ? null
        : new SecretKeySpec(clusterSecret.getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** Neither TLS nor a secret: plaintext hellos taken at their word. */
  public static PeerAuthentication none() {
    return new PeerAuthentication(TlsSettings.off(), "");
  }

  public static PeerAuthentication fromConfig(Config root) {
    return new PeerAuthentication(TlsSettings.fromConfig(root), root.getString("felix.replication.cluster-secret"));
  }

  TlsSettings tls() {
    return tls;
  }

  /** Whether hellos carry challenges and proofs. */
  boolean usesSecret() {
    return secret != null;
  }

  static byte[] newChallenge() {
    byte[] challenge = new byte[CHALLENGE_BYTES];
    RANDOM.nextBytes(challenge);
    return challenge;
  }

  /** The proof that {@code role}'s side knows the secret, over the other side's challenge. */
  byte[] proof(Role role, int diallerId, int acceptorId, byte[] challenge) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(secret);
      mac.update(("felix-peer-hello/" + role).getBytes(StandardCharsets.US_ASCII));
      mac.update(ByteBuffer.allocate(8).putInt(diallerId).putInt(acceptorId).array());
      return mac.doFinal(challenge);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** Whether {@code given} is the proof expected (compared in constant time). */
  boolean verify(Role role, int diallerId, int acceptorId, byte[] challenge, byte[] given) {
    return challenge.length == CHALLENGE_BYTES
        && MessageDigest.isEqual(proof(role, diallerId, acceptorId, challenge), given);
  }
}
