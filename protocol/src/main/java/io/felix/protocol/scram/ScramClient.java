package io.felix.protocol.scram;

import java.security.MessageDigest;

/**
 * The client's side of one SCRAM-SHA-256 exchange: {@link #clientFirst()}, then {@link #clientFinal} with the
 * server-first message, then {@link #verifyServerFinal} (which authenticates the broker). One use.
 */
public final class ScramClient {
  private final String user;
  private final String password;
  private final String clientNonce;
  private String authMessage;
  private byte[] serverKey;

  public ScramClient(String user, String password) {
    this(user, password, Scram.nonce());
  }

  /** With a given nonce: for tests against the RFC's vectors. */
  public ScramClient(String user, String password, String clientNonce) {
    this.user = user;
    this.password = password;
    this.clientNonce = clientNonce;
  }

  public String clientFirst() {
    return "n,," + clientFirstBare();
  }

  private String clientFirstBare() {
    return "n=" + Scram.escapeName(user) + ",r=" + clientNonce;
  }

  public String clientFinal(String serverFirst) {
    ScramAttributes attributes = ScramAttributes.parse(serverFirst, "server-first-message");
    if (attributes.get('e') != null) {
      throw new ScramException("the broker refused the exchange: " + attributes.get('e'));
    }
    String nonce = attributes.require('r', "server-first-message");
    if (!nonce.startsWith(clientNonce) || nonce.length() == clientNonce.length()) {
      throw new ScramException("the broker's nonce does not extend the client's");
    }
    byte[] salt = Scram.unb64(attributes.require('s', "server-first-message"), "the salt");
    int iterations;
    try {
      iterations = Integer.parseInt(attributes.require('i', "server-first-message"));
    } catch (NumberFormatException e) {
      throw new ScramException("the iteration count is not a number");
    }
    if (iterations < Scram.MIN_ITERATIONS) {
      throw new ScramException("the broker asks for " + iterations + " iterations, below " + Scram.MIN_ITERATIONS);
    }
    byte[] salted = Scram.saltedPassword(password, salt, iterations);
    String withoutProof = "c=biws,r=" + nonce;
    authMessage = clientFirstBare() + "," + serverFirst + "," + withoutProof;
    byte[] clientKey = Scram.clientKey(salted);
    byte[] clientSignature = Scram.hmac(Scram.hash(clientKey), authMessage);
    serverKey = Scram.serverKey(salted);
    return withoutProof + ",p=" + Scram.b64(Scram.xor(clientKey, clientSignature));
  }

  /** Throws when the broker's signature is not the one only a holder of this password's ServerKey can make. */
  public void verifyServerFinal(String serverFinal) {
    if (authMessage == null) {
      throw new IllegalStateException("clientFinal first");
    }
    ScramAttributes attributes = ScramAttributes.parse(serverFinal, "server-final-message");
    if (attributes.get('e') != null) {
      throw new ScramException("the broker refused the credentials: " + attributes.get('e'));
    }
    byte[] signature = Scram.unb64(attributes.require('v', "server-final-message"), "the server signature");
    if (!MessageDigest.isEqual(signature, Scram.hmac(serverKey, authMessage))) {
      throw new ScramException("the broker's signature does not match: it does not hold this user's credential");
    }
  }
}
