package io.felix.broker.security;

import io.felix.protocol.scram.Scram;
import io.felix.protocol.scram.ScramAttributes;
import io.felix.protocol.scram.ScramCredential;
import io.felix.protocol.scram.ScramException;
import java.security.MessageDigest;
import java.util.Optional;
import java.util.function.Function;

/**
 * The broker's side of one SCRAM-SHA-256 exchange (RFC 5802 section 5, RFC 7677): {@link #serverFirst} with the
 * client-first message, then {@link #serverFinal} with the client-final message, which checks the client's proof
 * against the user's StoredKey and answers the server signature. One use; not thread-safe (the connection's
 * session serializes it).
 *
 * <p>An unknown user gets a server-first message with a salt derived from the name and a broker secret, so the
 * exchange looks the same as for a known one and fails only at the proof: the answers do not tell which names exist.
 */
public final class ScramServer {
  private final Function<String, Optional<ScramCredential>> credentials;
  private final byte[] unknownUserSecret;
  private final int unknownUserIterations;
  private final String serverNonce;
  private String user;
  private ScramCredential credential;
  private String clientFirstBare;
  private String serverFirst;

  /** @param unknownUserSecret per-broker random bytes for the made-up salts of unknown users */
  public ScramServer(Function<String, Optional<ScramCredential>> credentials, byte[] unknownUserSecret,
      int unknownUserIterations, String serverNonce) {
    this.credentials = credentials;
    this.unknownUserSecret = unknownUserSecret;
    this.unknownUserIterations = unknownUserIterations;
    this.serverNonce = serverNonce;
  }

  /** The outcome of a client-final message: the authenticated principal and the server-final message. */
  public record Authenticated(String principal, String serverFinal) {}

  public String serverFirst(String clientFirst) {
    if (serverFirst != null) {
      throw new ScramException("the exchange already began: send the client-final message");
    }
    if (!clientFirst.startsWith("n,,")) {
      throw new ScramException("the client-first message must start with 'n,,' (no channel binding, no authzid)");
    }
    clientFirstBare = clientFirst.substring(3);
    ScramAttributes attributes = ScramAttributes.parse(clientFirstBare, "client-first-message");
    if (attributes.get('m') != null) {
      throw new ScramException("no SCRAM extensions are supported");
    }
    user = Scram.unescapeName(attributes.require('n', "client-first-message"));
    String clientNonce = attributes.require('r', "client-first-message");
    credential = credentials.apply(user).orElseGet(this::madeUp);
    serverFirst = "r=" + clientNonce + serverNonce + ",s=" + credential.salt() + ",i=" + credential.iterations();
    return serverFirst;
  }

  /** Throws {@link ScramException} when the proof is wrong (a wrong password or an unknown user). */
  public Authenticated serverFinal(String clientFinal) {
    if (serverFirst == null) {
      throw new ScramException("send the client-first message first");
    }
    int proofAt = clientFinal.lastIndexOf(",p=");
    if (proofAt < 0) {
      throw new ScramException("the client-final message has no proof (p=)");
    }
    String withoutProof = clientFinal.substring(0, proofAt);
    ScramAttributes attributes = ScramAttributes.parse(withoutProof, "client-final-message");
    if (!"biws".equals(attributes.get('c'))) {
      throw new ScramException("channel binding must be 'biws' (n,,): no channel binding");
    }
    String nonce = attributes.require('r', "client-final-message");
    if (!nonce.equals(ScramAttributes.parse(serverFirst, "server-first-message").get('r'))) {
      throw new ScramException("the nonce is not the one of this exchange");
    }
    byte[] proof = Scram.unb64(clientFinal.substring(proofAt + 3), "the client proof");
    String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
    byte[] storedKey = Scram.unb64(credential.storedKey(), "the stored key");
    byte[] clientSignature = Scram.hmac(storedKey, authMessage);
    if (proof.length != clientSignature.length
        || !MessageDigest.isEqual(Scram.hash(Scram.xor(proof, clientSignature)), storedKey)) {
      throw new ScramException("invalid-proof: wrong user name or password");
    }
    byte[] serverSignature = Scram.hmac(Scram.unb64(credential.serverKey(), "the server key"), authMessage);
    return new Authenticated(user, "v=" + Scram.b64(serverSignature));
  }

  /** A credential no password matches (random keys), with a salt that is the same for the name every time. */
  private ScramCredential madeUp() {
    byte[] salt = java.util.Arrays.copyOf(Scram.hmac(unknownUserSecret, "salt:" + user), 16);
    byte[] key = Scram.hmac(unknownUserSecret, "key:" + user + ":" + serverNonce);
    return new ScramCredential(Scram.b64(salt), unknownUserIterations, Scram.b64(key), Scram.b64(key));
  }
}
