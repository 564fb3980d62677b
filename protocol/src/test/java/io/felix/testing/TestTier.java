package io.felix.testing;

/**
 * Which run this is: {@code mvn -B verify} (the default tier: every behaviour once, at a scale that fits in minutes)
 * or {@code mvn -B verify -Dtier=long} (the same tests at full scale: every fault kind of the chaos suite, every
 * start order of a whole-cluster restart, minutes of fuzzing). The root pom's {@code tier-long} profile sets the
 * system property {@value #PROPERTY} for the test JVMs; a test picks its scale with {@link #pick}.
 */
public enum TestTier {
  DEFAULT,
  LONG;

  public static final String PROPERTY = "felix.tests.tier";

  /** The tier of this run: {@link #LONG} when {@value #PROPERTY} is {@code long}, else {@link #DEFAULT}. */
  public static TestTier current() {
    return "long".equals(System.getProperty(PROPERTY)) ? LONG : DEFAULT;
  }

  /** {@code inDefault} in the default tier, {@code inLong} in the long one. */
  public static <T> T pick(T inDefault, T inLong) {
    return current() == LONG ? inLong : inDefault;
  }
}
