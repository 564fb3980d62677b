package io.felix.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code felix perf cache} (or {@code felix cache}): its options are checked before anything connects; a bad one exits 2 naming it. */
class CacheCommandTest {
  private record Outcome(int code, String out, String err) {}

  private static Outcome run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Felix.run(args, new ByteArrayInputStream(new byte[0]), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8), Map.of());
    return new Outcome(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void badOptionsAreUsageErrorsNamingTheOption() {
    Outcome ratio = run("cache", "--cache", "c", "--get-ratio", "1.5");
    assertEquals(2, ratio.code());
    assertTrue(ratio.err().contains("--get-ratio: expected a number from 0 to 1, got 1.5"), ratio.err());
    Outcome verify = run("cache", "--cache", "c", "--verify", "--acks", "leader");
    assertEquals(2, verify.code());
    assertTrue(verify.err().contains("--verify needs --acks quorum or all"), verify.err());
    Outcome keys = run("cache", "--cache", "c", "--key-space", "0");
    assertEquals(2, keys.code());
    assertTrue(keys.err().contains("--key-space: expected a number from 1"), keys.err());
    Outcome missing = run("cache");
    assertEquals(2, missing.code());
    assertTrue(missing.err().contains("--cache"), missing.err());
    Outcome help = run("cache", "--help");
    assertEquals(0, help.code());
    assertTrue(help.out().startsWith("Usage: felix perf cache"), help.out());
  }
}
