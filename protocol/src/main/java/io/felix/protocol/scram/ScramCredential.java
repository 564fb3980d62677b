package io.felix.protocol.scram;

/**
 * What the broker keeps of a password (RFC 5802 section 3): the salt, the iteration count, StoredKey and ServerKey,
 * each base64. Enough to check a client's proof and sign the answer, not enough to log in: a client needs
 * ClientKey, which only the password gives.
 */
public record ScramCredential(String salt, int iterations, String storedKey, String serverKey) {
  public ScramCredential {
    if (iterations < Scram.MIN_ITERATIONS) {
      throw new IllegalArgumentException("iterations must be at least " + Scram.MIN_ITERATIONS + ", got " + iterations);
    }
  }
}
