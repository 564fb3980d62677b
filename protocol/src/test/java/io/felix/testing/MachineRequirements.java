package io.felix.testing;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * What a test needs of the machine it runs on (iptables and root, a cgroup hierarchy, Debian's chromium): a test
 * that cannot run here fails, naming what is missing, so that a machine without it never passes by running less.
 * With {@code -Dfelix.tests.allow-skips=true} it is skipped instead, saying why (in the test's output and as the
 * skip's message in the Surefire report). {@code .ci/run} installs everything the tests need.
 *
 * <p>Every test that depends on the machine goes through here; none calls {@code Assumptions} itself.
 */
public final class MachineRequirements {
  /** The system property (Maven passes {@code -D} properties on to the test JVMs) that lets such tests skip. */
  public static final String ALLOW_SKIPS = "felix.tests.allow-skips";

  private MachineRequirements() {}

  /**
   * Returns when {@code missing} is null; otherwise fails the test (or skips it, when skips are allowed).
   *
   * @param what the test or the part of it that needs the machine, for the message
   * @param missing why this machine cannot run it, or null when it can
   */
  public static void require(String what, String missing) {
    if (missing == null) {
      return;
    }
    String reason = what + " cannot run on this machine: " + missing;
    if (skipsAllowed()) {
      System.out.println("SKIPPED " + reason);
      Assumptions.abort(reason + " (skipped: -D" + ALLOW_SKIPS + "=true)");
    }
    fail(reason + ". .ci/run installs what the tests need; -D" + ALLOW_SKIPS + "=true skips such tests instead");
  }

  /**
   * For a test that can leave one part out: true when {@code missing} is null; false (after saying so) when it is
   * not and skips are allowed; otherwise fails the test.
   */
  public static boolean available(String part, String missing) {
    if (missing == null) {
      return true;
    }
    String reason = part + " cannot run on this machine: " + missing;
    if (skipsAllowed()) {
      System.out.println("SKIPPED " + reason + " (-D" + ALLOW_SKIPS + "=true); the rest of the test runs");
      return false;
    }
    fail(reason + ". .ci/run installs what the tests need; -D" + ALLOW_SKIPS + "=true leaves it out instead");
    return false; // not reached: fail throws
  }

  private static boolean skipsAllowed() {
    return Boolean.getBoolean(ALLOW_SKIPS);
  }
}
