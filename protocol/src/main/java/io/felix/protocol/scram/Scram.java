package io.felix.protocol.scram;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The SCRAM-SHA-256 functions of RFC 5802 section 3 (with RFC 7677's hash), shared by the client and the broker.
 * Passwords are taken as they are (no SASLprep): names and passwords outside ASCII are compared byte for byte.
 */
public final class Scram {
  public static final String MECHANISM = "SCRAM-SHA-256";
  /** RFC 7677 asks for at least 4096; the broker's default is higher (felix.security.scram-iterations). */
  public static final int MIN_ITERATIONS = 4096;
  private static final SecureRandom RANDOM = new SecureRandom();

  private Scram() {}

  /** The stored form of a password: a fresh random salt, then {@link #credential(String, byte[], int)}. */
  public static ScramCredential newCredential(String password, int iterations) {
    byte[] salt = new byte[16];
    RANDOM.nextBytes(salt);
    return credential(password, salt, iterations);
  }

  /** StoredKey and ServerKey of the password: what the broker keeps instead of the password. */
  public static ScramCredential credential(String password, byte[] salt, int iterations) {
    byte[] salted = saltedPassword(password, salt, iterations);
    return new ScramCredential(b64(salt), iterations, b64(hash(clientKey(salted))), b64(serverKey(salted)));
  }

  /** Hi(Normalize(password), salt, i): PBKDF2 with HMAC-SHA-256 and a 32-byte output. */
  static byte[] saltedPassword(String password, byte[] salt, int iterations) {
    try {
      PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
      return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("PBKDF2WithHmacSHA256 is not available", e);
    }
  }

  static byte[] clientKey(byte[] saltedPassword) {
    return hmac(saltedPassword, "Client Key");
  }

  static byte[] serverKey(byte[] saltedPassword) {
    return hmac(saltedPassword, "Server Key");
  }

  public static byte[] hmac(byte[] key, String message) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  public static byte[] hash(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  public static byte[] xor(byte[] a, byte[] b) {
    if (a.length != b.length) {
      throw new IllegalArgumentException("lengths differ: " + a.length + " and " + b.length);
    }
    byte[] out = new byte[a.length];
    for (int i = 0; i < a.length; i++) {
      out[i] = (byte) (a[i] ^ b[i]);
    }
    return out;
  }

  /** A printable nonce of 24 random bytes (no ',' so it fits an attribute value). */
  public static String nonce() {
    byte[] bytes = new byte[24];
    RANDOM.nextBytes(bytes);
    return Base64.getEncoder().withoutPadding().encodeToString(bytes);
  }

  /** saslname: ',' and '=' escaped as RFC 5802 section 5.1 says. */
  public static String escapeName(String name) {
    return name.replace("=", "=3D").replace(",", "=2C");
  }

  public static String unescapeName(String saslName) {
    if (saslName.replace("=2C", "").replace("=3D", "").contains("=")) {
      throw new ScramException("the user name has a '=' that is not escaped as =2C or =3D");
    }
    return saslName.replace("=2C", ",").replace("=3D", "=");
  }

  public static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  public static byte[] unb64(String text, String what) {
    try {
      return Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new ScramException(what + " is not base64");
    }
  }
}
