package io.felix.broker.testing;

import io.felix.testing.TestTier;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;

/**
 * A seeded generator of bad input for the fuzz tests: valid encodings mutated (bits flipped, bytes overwritten
 * with edge values, cut short, a slice repeated or dropped, varint-like runs of 0xff) and plain random bytes.
 * Each test runs for {@link #duration} (the {@code felix.fuzz.seconds} property; else {@code defaultSeconds}, or
 * {@value #LONG_TIER_SECONDS} s in the long tier, {@code -Dtier=long}) from the seed {@code felix.fuzz.seed}
 * (default: the time), which it prints, so a failure can be replayed:
 * {@code mvn -B -o -pl broker -am test -Dtier=cluster -Dtest=InputFuzzClusterTest -Dfelix.fuzz.seconds=600
 * -Dfelix.fuzz.seed=42 -Dsurefire.failIfNoSpecifiedTests=false}.
 */
public final class FuzzInput {
  private static final byte[] EDGES = {0, 1, (byte) 0x7f, (byte) 0x80, (byte) 0xff, (byte) 0xfe, 0x0a, 0x12, 0x22};

  private final long seed;
  private final Random random;

  public FuzzInput(String what) {
    this.seed = Long.getLong("felix.fuzz.seed", System.nanoTime());
    this.random = new Random(seed);
    System.out.println("fuzzing " + what + " with -Dfelix.fuzz.seed=" + seed);
  }

  /** How long each fuzz test runs in the long tier. */
  static final int LONG_TIER_SECONDS = 120;

  /** How long to fuzz: -Dfelix.fuzz.seconds, else {@code defaultSeconds} ({@link #LONG_TIER_SECONDS} in the long tier). */
  public static Duration duration(int defaultSeconds) {
    return Duration.ofSeconds(Long.getLong("felix.fuzz.seconds", TestTier.pick(defaultSeconds, LONG_TIER_SECONDS)));
  }

  public long seed() {
    return seed;
  }

  public Random random() {
    return random;
  }

  /** {@code valid} with one to four mutations, or now and then random bytes of about its size. */
  public byte[] mutate(byte[] valid) {
    if (random.nextInt(10) == 0 || valid.length == 0) {
      return bytes(random.nextInt(Math.max(valid.length * 2, 16) + 1));
    }
    byte[] b = valid.clone();
    int mutations = 1 + random.nextInt(4);
    for (int m = 0; m < mutations && b.length > 0; m++) {
      int at = random.nextInt(b.length);
      switch (random.nextInt(7)) {
        case 0 -> b[at] ^= (byte) (1 << random.nextInt(8));
        case 1 -> b[at] = EDGES[random.nextInt(EDGES.length)];
        case 2 -> b = Arrays.copyOf(b, at); // cut short
        case 3 -> { // repeat a slice
          int len = Math.min(b.length - at, 1 + random.nextInt(64));
          byte[] longer = Arrays.copyOf(b, b.length + len);
          System.arraycopy(b, at, longer, at + len, b.length - at);
          b = longer;
        }
        case 4 -> { // drop a slice
          int len = Math.min(b.length - at, 1 + random.nextInt(16));
          byte[] shorter = new byte[b.length - len];
          System.arraycopy(b, 0, shorter, 0, at);
          System.arraycopy(b, at + len, shorter, at, b.length - at - len);
          b = shorter;
        }
        case 5 -> Arrays.fill(b, at, Math.min(b.length, at + 1 + random.nextInt(10)), (byte) 0xff);
        default -> b[at] = (byte) random.nextInt(256);
      }
    }
    return b;
  }

  public byte[] bytes(int length) {
    byte[] b = new byte[length];
    random.nextBytes(b);
    return b;
  }

  /** {@code valid} (text) mutated, as a string (bad UTF-8 becomes replacement characters). */
  public String mutate(String valid) {
    if (random.nextInt(8) == 0) {
      String nest = random.nextBoolean() ? "[" : "{\"a\":";
      return nest.repeat(1 + random.nextInt(5000)); // deep nesting, never closed
    }
    return new String(mutate(valid.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        java.nio.charset.StandardCharsets.UTF_8);
  }
}
